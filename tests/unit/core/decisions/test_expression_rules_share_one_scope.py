"""A kind's rules share one Jinja context per reconcile (``Scope``): none sees another's result,
and one that fails or finds data missing leaves the others' values as they would be alone."""

import pytest

from engine.core.decisions.context import status_context
from engine.core.model.errors import KindError
from engine.core.model.language.expressions import Expression, Scope, compile_expression

PARENT = {"metadata": {"name": "web", "namespace": "shop"}, "spec": {"replicas": 2}}


def rule(text: str, field: str = "fields.x") -> Expression:
    return compile_expression(text, file="kind.yaml", line=3, field=field)


RULES = [
    "spec.replicas * 2",
    "child('Service', name ~ '-service').spec.ports[0].nodePort >= 1",  # missing: None
    "name ~ '/' ~ namespace",
    "[spec.replicas, status.ready]",
    "range(3) | list | length",  # a Jinja global, as in a context of its own
]


def test_rules_in_one_scope_give_what_each_gives_alone() -> None:
    context = status_context(PARENT, [])
    scope = Scope(context)
    shared = [rule(text).evaluate(scope) for text in RULES]
    alone = [rule(text).evaluate(status_context(PARENT, [])) for text in RULES]
    assert shared == alone == [4, None, "web/shop", [2, None], 3]


def test_a_failing_rule_does_not_change_the_next_ones_value() -> None:
    scope = Scope(status_context(PARENT, []))
    with pytest.raises(KindError, match="ZeroDivisionError"):
        rule("spec.replicas / 0").evaluate(scope)
    assert rule("spec.replicas + 1").evaluate(scope) == 3
    assert rule("child('Deployment', 'absent').status.readyReplicas").evaluate(scope) is None


def test_the_name_a_rule_writes_its_value_to_is_not_readable() -> None:
    with pytest.raises(KindError, match="unknown name result"):
        rule("result")
