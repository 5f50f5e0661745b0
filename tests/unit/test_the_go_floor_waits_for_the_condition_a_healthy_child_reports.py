"""The Go floor reads, per child resource, the condition that makes a child ready: the one the
child's healthy shape reports (``preview.healthy``), none when existing is enough."""

from __future__ import annotations

from bench import floorfiles


def test_a_deployment_is_ready_when_available() -> None:
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "ns"},
        "spec": {"replicas": 1, "template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}},
    }
    assert floorfiles.ready_condition(deployment) == "Available"


def test_a_config_map_is_ready_when_it_exists() -> None:
    config_map = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "ns"}}
    assert floorfiles.ready_condition(config_map) == ""
