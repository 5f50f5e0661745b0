"""Pods follow phase and readiness, claims must be bound, load balancers need an address."""

from typing import Any

from engine.core.decisions.health import Health, assess


def pod(phase: str | None, *conditions: dict[str, str], **status: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"conditions": list(conditions), **status}
    if phase is not None:
        body["phase"] = phase
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web-0"}, "status": body}


def test_running_ready_pod_is_current() -> None:
    assert assess(pod("Running", {"type": "Ready", "status": "True"})) == Health("Current", "ready")


def test_running_pod_that_is_not_ready_is_in_progress() -> None:
    assert assess(pod("Running", {"type": "Ready", "status": "False"})) == Health(
        "InProgress", "running, not ready"
    )


def test_crash_looping_pod_has_failed_and_names_the_container() -> None:
    crashing = [{"name": "app", "state": {"waiting": {"reason": "CrashLoopBackOff"}}}]

    assert assess(pod("Running", containerStatuses=crashing)) == Health(
        "Failed", "containers crash-looping: app"
    )


def test_unschedulable_pod_has_failed() -> None:
    scheduled = {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": "0/1 nodes"}

    assert assess(pod("Pending", scheduled)) == Health("Failed", "unschedulable: 0/1 nodes")


def test_pod_phases_before_and_after_running() -> None:
    assert assess(pod(None)).status == "InProgress"
    assert assess(pod("Pending")).status == "InProgress"
    assert assess(pod("Succeeded")) == Health("Current", "completed")
    assert assess(pod("Failed", reason="Evicted")) == Health("Failed", "failed: Evicted")


def test_claim_is_current_only_when_bound() -> None:
    claim = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "status": {"phase": "Pending"}}

    assert assess(claim) == Health("InProgress", "not bound yet (phase Pending)")
    assert assess({**claim, "status": {"phase": "Bound"}}) == Health("Current", "bound")


def test_node_port_service_is_current_once_it_exists() -> None:
    service = {"apiVersion": "v1", "kind": "Service", "spec": {"type": "NodePort", "clusterIP": "10.0.0.7"}}

    assert assess(service).status == "Current"


def test_load_balancer_service_waits_for_an_ingress_address() -> None:
    service: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Service",
        "spec": {"type": "LoadBalancer", "clusterIP": "10.0.0.7"},
        "status": {"loadBalancer": {}},
    }
    with_address = {**service, "status": {"loadBalancer": {"ingress": [{"ip": "203.0.113.10"}]}}}

    assert assess(service) == Health("InProgress", "waiting for a load-balancer address")
    assert assess(with_address).status == "Current"


def test_crd_is_current_once_established() -> None:
    crd: dict[str, Any] = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "status": {"conditions": [{"type": "Established", "status": "True"}]},
    }
    refused = {
        **crd,
        "status": {"conditions": [{"type": "NamesAccepted", "status": "False", "message": "plural taken"}]},
    }

    assert assess(crd).status == "Current"
    assert assess(refused) == Health("Failed", "names not accepted: plural taken")
