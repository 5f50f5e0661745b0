"""``preview.healthy`` makes a child look as its controller leaves it healthy: kstatus says Current.

The judge is ``health.assess``, the same kstatus rules that decide a parent's
``ChildrenReady``, so a preview never shows a parent Ready that a cluster would not.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.core.decisions import health
from engine.core.offline import preview

NOW = "2026-01-02T03:04:05Z"
POD_SPEC = {"containers": [{"name": "app", "image": "nginx:1.27"}, {"name": "sidecar", "image": "busybox"}]}
TEMPLATE = {"metadata": {"labels": {"app": "web"}}, "spec": POD_SPEC}


def obj(api_version: str, kind: str, spec: dict[str, Any] | None = None, **metadata: Any) -> dict[str, Any]:
    child: dict[str, Any] = {
        "apiVersion": api_version,
        "kind": kind,
        "metadata": {"name": "web", "namespace": "shop", **metadata},
    }
    if spec is not None:
        child["spec"] = spec
    return child


# Children whose health depends on what their controller writes: not Current as rendered.
WAITING = {
    "deployment": obj("apps/v1", "Deployment", {"replicas": 3, "template": TEMPLATE}),
    "deployment-default-replicas": obj("apps/v1", "Deployment", {"template": TEMPLATE}),
    "deployment-seen-before": obj(
        "apps/v1", "Deployment", {"replicas": 2, "template": TEMPLATE}, generation=4
    ),
    "statefulset": obj("apps/v1", "StatefulSet", {"replicas": 3, "template": TEMPLATE}),
    "statefulset-partitioned": obj(
        "apps/v1",
        "StatefulSet",
        {"replicas": 4, "template": TEMPLATE, "updateStrategy": {"rollingUpdate": {"partition": 2}}},
    ),
    "replicaset": obj("apps/v1", "ReplicaSet", {"replicas": 2, "template": TEMPLATE}),
    "daemonset": obj("apps/v1", "DaemonSet", {"template": TEMPLATE}),
    "job": obj("batch/v1", "Job", {"template": TEMPLATE}),
    "job-with-completions": obj(
        "batch/v1", "Job", {"completions": 5, "parallelism": 2, "template": TEMPLATE}
    ),
    "pod": obj("v1", "Pod", POD_SPEC),
    "claim": obj(
        "v1",
        "PersistentVolumeClaim",
        {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
    ),
    "load-balancer": obj("v1", "Service", {"type": "LoadBalancer", "ports": [{"port": 80}, {"port": 443}]}),
    "custom-resource-with-a-ready-condition": {
        **obj("example.com/v1", "Database", {"size": 1}, generation=2),
        "status": {"conditions": [{"type": "Ready", "status": "False", "reason": "Provisioning"}]},
    },
}
# Children that are Current as soon as they exist; healthy() must not spoil that.
EXISTING = {
    "service": obj("v1", "Service", {"ports": [{"port": 80}]}),
    "node-port-service": obj("v1", "Service", {"type": "NodePort", "ports": [{"port": 80}, {"port": 81}]}),
    "headless-service": obj("v1", "Service", {"clusterIP": "None", "ports": [{"port": 3306}]}),
    "external-name-service": obj("v1", "Service", {"type": "ExternalName", "externalName": "db.example.com"}),
    "configmap": {**obj("v1", "ConfigMap"), "data": {"a": "b"}},
    "cronjob": obj(
        "batch/v1", "CronJob", {"schedule": "* * * * *", "jobTemplate": {"spec": {"template": TEMPLATE}}}
    ),
    "custom-resource": obj("example.com/v1", "Database", {"size": 1}),
}


@pytest.mark.parametrize("child", WAITING.values(), ids=WAITING.keys())
def test_a_child_its_controller_has_not_reported_on_is_not_current_yet(child: dict[str, Any]) -> None:
    assert not health.assess(child, now=NOW).current


@pytest.mark.parametrize("child", [*WAITING.values(), *EXISTING.values()], ids=[*WAITING, *EXISTING])
def test_a_healthy_child_is_current(child: dict[str, Any]) -> None:
    made = preview.healthy(child, NOW)
    verdict = health.assess(made, now=NOW)
    assert verdict.current, verdict.message


@pytest.mark.parametrize("child", [*WAITING.values(), *EXISTING.values()], ids=[*WAITING, *EXISTING])
def test_healthy_keeps_what_the_template_wrote_and_changes_nothing_it_was_given(
    child: dict[str, Any],
) -> None:
    before = repr(child)
    made = preview.healthy(child, NOW)
    assert repr(child) == before
    for part in ("metadata", "spec"):
        assert holds(made.get(part), child.get(part)), part


def holds(made: Any, written: Any) -> bool:
    """Whether ``made`` has every field of ``written`` with its value (and perhaps more fields)."""
    if isinstance(written, dict):
        return isinstance(made, dict) and all(k in made and holds(made[k], v) for k, v in written.items())
    if isinstance(written, list):
        return isinstance(made, list) and len(made) == len(written) and all(map(holds, made, written))
    return bool(made == written)


@pytest.mark.parametrize("name", ["node-port-service", "load-balancer"])
def test_every_port_of_a_node_port_service_gets_its_own_node_port(name: str) -> None:
    ports = preview.healthy(WAITING.get(name) or EXISTING[name], NOW)["spec"]["ports"]
    node_ports = [port["nodePort"] for port in ports]
    assert len(set(node_ports)) == len(ports)
    assert all(30000 <= port <= 32767 for port in node_ports)


def test_the_same_child_gets_the_same_addresses_every_time() -> None:
    child = WAITING["load-balancer"]
    assert preview.healthy(child, NOW) == preview.healthy(child, NOW)
