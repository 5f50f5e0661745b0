"""kstatus's generic rules decide before any per-kind rule looks at the object."""

from typing import Any

from engine.core.decisions.health import Health, assess
from tests.unit._ordering import PROGRESSING, rollout


def available_deployment(**metadata: Any) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "generation": 1, **metadata},
        "spec": {"replicas": 1, "progressDeadlineSeconds": 600},
        "status": rollout(
            1, 1, {"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable"}, PROGRESSING
        ),
    }


def test_health_of_an_available_deployment_is_current() -> None:
    assert assess(available_deployment()).status == "Current"


def test_health_of_an_object_being_deleted_is_terminating() -> None:
    assert assess(available_deployment(deletionTimestamp="2026-01-01T00:00:00Z")) == Health(
        "Terminating", "being deleted"
    )


def test_health_is_in_progress_until_the_controller_observes_the_generation() -> None:
    assert assess(available_deployment(generation=2)) == Health(
        "InProgress", "generation 2 not observed yet (observed 1)"
    )


def test_health_follows_reconciling_and_stalled_conditions() -> None:
    reconciling = {
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": "w"},
        "status": {"conditions": [{"type": "Reconciling", "status": "True", "message": "scaling up"}]},
    }
    stalled = {
        **reconciling,
        "status": {"conditions": [{"type": "Stalled", "status": "True", "reason": "QuotaExceeded"}]},
    }

    assert assess(reconciling) == Health("InProgress", "reconciling: scaling up")
    assert assess(stalled) == Health("Failed", "stalled: QuotaExceeded")


def test_health_of_an_unknown_kind_follows_its_ready_condition() -> None:
    def widget(status: str) -> dict[str, Any]:
        ready = {
            "type": "Ready",
            "status": status,
            "reason": "ChildrenNotReady",
            "message": "Service s: pending",
        }
        return {"apiVersion": "example.com/v1", "kind": "Widget", "status": {"conditions": [ready]}}

    assert assess(widget("True")).status == "Current"
    assert assess(widget("False")) == Health("InProgress", "not ready: Service s: pending")


def test_health_of_objects_without_status_rules_is_current_once_they_exist() -> None:
    for api_version, kind in [
        ("v1", "ConfigMap"),
        ("v1", "Secret"),
        ("v1", "ServiceAccount"),
        ("rbac.authorization.k8s.io/v1", "Role"),
    ]:
        assert (
            assess({"apiVersion": api_version, "kind": kind, "metadata": {"name": "x"}}).status == "Current"
        )
