"""Status rules run sandboxed: they read the parent and children but cannot modify them."""

import copy

import pytest

from engine.core.decisions.context import status_context
from engine.core.model.errors import KindError
from engine.core.model.language.expressions import compile_expression


def test_expression_cannot_mutate_the_parent() -> None:
    parent = {"metadata": {"name": "web"}, "spec": {"replicas": 2}}
    before = copy.deepcopy(parent)
    rule = compile_expression("spec.update({'replicas': 9})", file="kind.yaml", line=3, field="fields.x")

    with pytest.raises(KindError, match="not allowed"):
        rule.evaluate(status_context(parent, []))
    assert parent == before


def test_expression_cannot_reach_python_internals() -> None:
    with pytest.raises(KindError, match=r"^kind.yaml:3: fields.x: not allowed .* '__class__'"):
        compile_expression("name.__class__.__mro__", file="kind.yaml", line=3, field="fields.x")


def test_expressions_compare_by_text_and_location_not_by_compiled_code() -> None:
    first = compile_expression("spec.replicas", file="kind.yaml", line=3, field="fields.x")
    second = compile_expression("spec.replicas", file="kind.yaml", line=3, field="fields.x")
    assert first == second
    assert hash(first) == hash(second)
    assert first != compile_expression("spec.replicas", file="kind.yaml", line=4, field="fields.x")
