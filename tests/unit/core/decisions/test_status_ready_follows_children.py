"""Ready is True only when everything holds; when it does not, it names the children that block it."""

from typing import Any

from engine.core.decisions import conditions
from engine.core.decisions.status import Outcome, derive_status
from engine.core.model.identity import ChildId
from engine.core.model.kinds import ConditionRule
from engine.core.model.language.expressions import compile_expression
from tests.unit import _kinds
from tests.unit._ordering import rollout

NOW = "2026-03-01T12:00:00Z"
DESIRED = (
    ChildId("apps", "v1", "Deployment", "shop", "web-deployment"),
    ChildId("", "v1", "Service", "shop", "web-service"),
)


def rule(text: str, line: int) -> ConditionRule:
    condition_type = "DeploymentAvailable"
    expression = compile_expression(text, file="kind.yaml", line=line, field=f"conditions.{condition_type}")
    return ConditionRule(type=condition_type, status=expression)


KIND = _kinds.deploywebservice(
    conditions=(rule("condition_status(child('Deployment', name ~ '-deployment'), 'Available')", 9),),
)
PARENT = _kinds.shop_web(1)


def deployment(available: int, *, deadline_exceeded: bool = False) -> dict[str, Any]:
    progressing = (
        ("False", "ProgressDeadlineExceeded") if deadline_exceeded else ("True", "NewReplicaSetAvailable")
    )
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web-deployment", "namespace": "shop", "generation": 1},
        "spec": {"replicas": 2, "progressDeadlineSeconds": 600},
        "status": rollout(
            2,
            available,
            {"type": "Available", "status": "True" if available == 2 else "False"},
            {"type": "Progressing", "status": progressing[0], "reason": progressing[1]},
        ),
    }


SERVICE = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "web-service", "namespace": "shop"},
    "spec": {"type": "NodePort", "ports": [{"port": 80, "targetPort": 8080, "nodePort": 30080}]},
}


def condition(status: dict[str, Any], type_: str) -> dict[str, Any]:
    found = conditions.find_in(status["conditions"], type_)
    assert found is not None, f"no {type_} condition in {status['conditions']}"
    return found


def test_ready_is_true_when_rendered_applied_and_every_child_current() -> None:
    status = derive_status(KIND, PARENT, [deployment(2), SERVICE], Outcome(desired=DESIRED), NOW)

    assert [(c["type"], c["status"]) for c in status["conditions"]] == [
        ("Ready", "True"),
        ("TemplatesRendered", "True"),
        ("ChildrenApplied", "True"),
        ("ChildrenReady", "True"),
        ("DeploymentAvailable", "True"),
    ]
    assert condition(status, "ChildrenReady")["message"] == "2 children ready"
    assert all(c["observedGeneration"] == 1 and c["lastTransitionTime"] == NOW for c in status["conditions"])


def test_ready_is_false_and_names_the_blocking_children_and_why() -> None:
    status = derive_status(KIND, PARENT, [deployment(1)], Outcome(desired=DESIRED), NOW)

    ready = condition(status, "Ready")
    assert (ready["status"], ready["reason"]) == ("False", "ChildrenNotReady")
    assert ready["message"] == (
        "Deployment web-deployment: 1/2 replicas available; Service web-service: not created yet"
    )
    assert condition(status, "DeploymentAvailable")["status"] == "False"


def test_a_failed_child_makes_the_reason_child_failed() -> None:
    status = derive_status(
        KIND, PARENT, [deployment(0, deadline_exceeded=True), SERVICE], Outcome(desired=DESIRED), NOW
    )

    ready = condition(status, "Ready")
    assert (ready["status"], ready["reason"]) == ("False", "ChildFailed")
    assert ready["message"].startswith("Deployment web-deployment: progress deadline exceeded")


def test_an_observed_child_at_another_version_of_its_group_counts_as_the_desired_one() -> None:
    desired = (
        ChildId("apps", "v1beta2", "Deployment", "shop", "web-deployment"),
        ChildId("", "v1", "Service", "shop", "web-service"),
    )

    status = derive_status(KIND, PARENT, [deployment(2), SERVICE], Outcome(desired=desired), NOW)

    assert condition(status, "ChildrenReady")["status"] == "True"


def test_a_false_custom_condition_keeps_ready_false_even_with_healthy_children() -> None:
    unavailable = deployment(2)
    unavailable["status"]["conditions"][0]["status"] = "False"
    only_service = (ChildId("", "v1", "Service", "shop", "web-service"),)

    status = derive_status(KIND, PARENT, [unavailable, SERVICE], Outcome(desired=only_service), NOW)

    ready = condition(status, "Ready")
    assert condition(status, "ChildrenReady")["status"] == "True"
    assert (ready["status"], ready["reason"]) == ("False", "NotSatisfied")
