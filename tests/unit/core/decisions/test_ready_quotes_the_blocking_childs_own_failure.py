"""A child that blocks Ready and says why in a failure condition of its own has it quoted on
the parent's Ready condition, in the child's words: a Deployment whose ReplicaSet cannot
create pods is not just "0/2 replicas created"."""

from typing import Any

from engine.core.decisions import health
from engine.core.decisions.status import Outcome, derive_status
from engine.core.model.identity import ChildId
from tests.unit import _kinds

NOW = "2026-03-01T12:00:00Z"
FORBIDDEN = (
    'pods "localdns-6f7b9c-" is forbidden: error looking up service account x1/localdns: '
    'serviceaccount "localdns" not found'
)
KIND = _kinds.status_kind("coredns", "tests.stencil.dev/v1", "Widget")
PARENT = {
    "apiVersion": "tests.stencil.dev/v1",
    "kind": "Widget",
    "metadata": {"name": "dns", "namespace": "x1", "generation": 1},
    "spec": {},
}


def deployment(*extra: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "localdns", "namespace": "x1", "generation": 1},
        "spec": {"replicas": 2, "progressDeadlineSeconds": 600},
        "status": {
            "observedGeneration": 1,
            "conditions": [
                {"type": "Available", "status": "False", "reason": "MinimumReplicasUnavailable"},
                *extra,
            ],
        },
    }


REPLICA_FAILURE = {"type": "ReplicaFailure", "status": "True", "reason": "FailedCreate", "message": FORBIDDEN}


def ready_message(child: dict[str, Any]) -> str:
    outcome = Outcome(desired=(ChildId("apps", "v1", "Deployment", "x1", "localdns"),))
    status = derive_status(KIND, PARENT, [child], outcome, NOW)
    (ready,) = [c for c in status["conditions"] if c["type"] == "Ready"]
    assert ready["status"] == "False"
    return str(ready["message"])


def test_ready_quotes_the_replica_failure_of_the_blocking_deployment() -> None:
    assert ready_message(deployment(REPLICA_FAILURE)) == (
        f"Deployment localdns: 0/2 replicas created (ReplicaFailure FailedCreate: {FORBIDDEN})"
    )


def test_a_child_without_a_failure_condition_keeps_the_short_message() -> None:
    assert ready_message(deployment()) == "Deployment localdns: 0/2 replicas created"


def test_a_failure_that_is_no_longer_true_is_not_quoted() -> None:
    over = {**REPLICA_FAILURE, "status": "False"}
    assert ready_message(deployment(over)) == "Deployment localdns: 0/2 replicas created"


def test_a_failure_the_verdict_already_quotes_is_not_repeated() -> None:
    replica_set = {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {"name": "localdns-6f7b9c", "generation": 1},
        "spec": {"replicas": 2},
        "status": {"observedGeneration": 1, "conditions": [REPLICA_FAILURE]},
    }
    assert health.assess(replica_set, now=NOW).message == f"replica failure: {FORBIDDEN}"
