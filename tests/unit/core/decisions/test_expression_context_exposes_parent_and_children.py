"""What a status rule sees: the parent's parts, children by kind and name, and helpers."""

from typing import Any

from engine.core.decisions.context import status_context
from engine.core.model.language.expressions import compile_expression
from tests.unit import _kinds
from tests.unit._ordering import rollout

PARENT = _kinds.shop_web(3, status={"nodePort": 30080})
DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web-deployment", "namespace": "shop", "generation": 1},
    "spec": {"replicas": 2},
    "status": rollout(
        2,
        1,
        {"type": "Available", "status": "False", "reason": "MinimumReplicasUnavailable"},
        {"type": "Progressing", "status": "True", "reason": "ReplicaSetUpdated"},
    ),
}
SERVICE = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "web-service", "namespace": "shop"},
    "spec": {"type": "NodePort", "ports": [{"port": 80, "targetPort": 8080, "nodePort": 30080}]},
}


def value(text: str) -> Any:
    rule = compile_expression(text, file="kind.yaml", line=1, field="fields.x")
    return rule.evaluate(status_context(PARENT, [DEPLOYMENT, SERVICE]))


def test_context_has_the_parent_and_its_shorthands() -> None:
    assert value("[name, namespace, spec.replicas, metadata.generation, status.nodePort]") == [
        "web",
        "shop",
        2,
        3,
        30080,
    ]
    assert value("parent.kind") == "DeployWebService"


def test_context_indexes_children_by_kind_and_name() -> None:
    assert value("children.Service['web-service'].spec.ports[0].nodePort") == 30080
    assert value("child('Deployment', name ~ '-deployment').spec.replicas") == 2


def test_child_of_an_unknown_name_is_none() -> None:
    assert value("child('Deployment', 'other') is none") is True


def test_condition_status_reads_a_childs_condition() -> None:
    assert value("condition_status(child('Deployment', 'web-deployment'), 'Available')") == "False"
    assert value("condition_status(child('Deployment', 'web-deployment'), 'ReplicaFailure')") is None
    assert value("condition_status(child('Deployment', 'absent'), 'Available')") is None


def test_condition_returns_the_whole_condition() -> None:
    assert (
        value("condition(child('Deployment', 'web-deployment'), 'Progressing').reason") == "ReplicaSetUpdated"
    )


def test_health_gives_the_kstatus_verdict_of_a_child() -> None:
    assert value("health(child('Deployment', 'web-deployment'))") == "InProgress"
    assert value("health(child('Service', 'web-service'))") == "Current"
    assert value("health(child('Service', 'absent'))") is None
