"""Details of kstatus's source that its test tables do not show, matched one by one."""

from typing import Any

from engine.core.decisions.health import Health, assess


def test_deployment_whose_progress_deadline_is_max_int32_has_none() -> None:
    # The Deployment controller reads 2147483647 as "no deadline" and then never sets Progressing.
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "spec": {"replicas": 1, "progressDeadlineSeconds": 2147483647},
        "status": {
            "replicas": 1,
            "updatedReplicas": 1,
            "readyReplicas": 1,
            "availableReplicas": 1,
            "conditions": [{"type": "Available", "status": "True"}],
        },
    }

    assert assess(deployment).status == "Current"


def test_job_conditions_are_read_in_order() -> None:
    complete = {"type": "Complete", "status": "True"}
    failed = {"type": "Failed", "status": "True", "reason": "BackoffLimitExceeded"}

    def job(*conditions: dict[str, str]) -> dict[str, Any]:
        return {"apiVersion": "batch/v1", "kind": "Job", "status": {"conditions": list(conditions)}}

    assert assess(job(complete, failed)).status == "Current"
    assert assess(job(failed, complete)).status == "Failed"


def test_job_is_suspended_only_while_spec_suspend_is_the_boolean_true() -> None:
    def job(suspend: Any) -> dict[str, Any]:
        suspended = {"type": "Suspended", "status": "True"}
        return {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "spec": {"suspend": suspend},
            "status": {"conditions": [suspended]},
        }

    assert assess(job(True)) == Health("Current", "suspended")
    assert assess(job("true")) == Health("InProgress", "not started yet")


def test_crd_conditions_are_read_in_order() -> None:
    established = {"type": "Established", "status": "True"}
    refused = {"type": "NamesAccepted", "status": "False", "message": "plural taken"}

    def crd(*conditions: dict[str, str]) -> dict[str, Any]:
        return {
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "status": {"conditions": list(conditions)},
        }

    assert assess(crd(established, refused)).status == "Current"
    assert assess(crd(refused, established)) == Health("Failed", "names not accepted: plural taken")


def test_ready_condition_with_an_odd_status_is_passed_over() -> None:
    def widget(*statuses: str) -> dict[str, Any]:
        ready = [{"type": "Ready", "status": status, "reason": "Waiting"} for status in statuses]
        return {"apiVersion": "example.com/v1", "kind": "Widget", "status": {"conditions": ready}}

    assert assess(widget("Maybe")) == Health("Current", "exists")
    assert assess(widget("Maybe", "Unknown")) == Health("InProgress", "not ready: Waiting")


def test_pod_is_ready_when_any_ready_condition_is_true() -> None:
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "status": {
            "phase": "Running",
            "conditions": [{"type": "Ready", "status": "False"}, {"type": "Ready", "status": "True"}],
        },
    }

    assert assess(pod) == Health("Current", "ready")


def test_load_balancer_service_without_a_cluster_ip_waits_for_one_first() -> None:
    service = {"apiVersion": "v1", "kind": "Service", "spec": {"type": "LoadBalancer"}}

    assert assess(service) == Health("InProgress", "no cluster IP assigned yet")
