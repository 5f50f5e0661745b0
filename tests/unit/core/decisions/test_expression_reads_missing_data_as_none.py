"""A child that does not exist yet, or has no status yet, is normal: the rule yields None."""

from typing import Any

from engine.core.decisions.context import status_context
from engine.core.model.language.expressions import compile_expression

PARENT = {"metadata": {"name": "web", "namespace": "shop"}, "spec": {"replicas": 2}}


def value(text: str, observed: list[dict[str, Any]] | None = None) -> Any:
    rule = compile_expression(text, file="kind.yaml", line=7, field="fields.nodePort")
    return rule.evaluate(status_context(PARENT, observed or []))


def test_expression_chain_through_a_missing_child_is_none() -> None:
    assert value("child('Service', name ~ '-service').spec.ports[0].nodePort") is None


def test_expression_chain_through_a_child_without_status_is_none() -> None:
    fresh = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web-deployment"}}
    assert value("child('Deployment', 'web-deployment').status.availableReplicas", [fresh]) is None


def test_expression_comparing_missing_data_is_none_not_false() -> None:
    assert value("children.Deployment['web-deployment'].status.readyReplicas >= 1") is None


def test_expression_missing_parts_of_a_list_result_become_none() -> None:
    assert value("[child('Service', 'absent').spec, spec.replicas]") == [None, 2]


def test_expression_with_a_default_filter_gives_the_default() -> None:
    assert value("child('Deployment', 'absent').status.readyReplicas | default(0)") == 0
