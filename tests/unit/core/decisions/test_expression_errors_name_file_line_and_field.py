"""A broken status rule is reported where it is written: file, line and field."""

import pytest

from engine.core.decisions.context import status_context
from engine.core.model.errors import KindError
from engine.core.model.language.expressions import Expression, compile_expression


def compile_at_line_12(text: str) -> Expression:
    return compile_expression(text, file="templates/web/kind.yaml", line=12, field="conditions[0].status")


def test_expression_syntax_error_is_a_kind_error_with_location() -> None:
    with pytest.raises(KindError) as caught:
        compile_at_line_12("spec.replicas +")

    assert caught.value.file == "templates/web/kind.yaml"
    assert caught.value.line == 12
    assert caught.value.field == "conditions[0].status"
    assert str(caught.value).startswith(
        "templates/web/kind.yaml:12: conditions[0].status: invalid expression"
    )


def test_expression_with_an_unknown_name_is_refused_when_compiled() -> None:
    with pytest.raises(KindError, match="unknown name sepc"):
        compile_at_line_12("sepc.replicas > 1")


def test_expression_may_use_jinja_globals_and_its_own_loop_names() -> None:
    rule = compile_at_line_12("range(3) | map('string') | join(',')")
    assert rule.evaluate(status_context({}, [])) == "0,1,2"


def test_expression_failing_at_evaluation_is_a_kind_error_with_location() -> None:
    rule = compile_at_line_12("spec.replicas / 0")

    with pytest.raises(KindError) as caught:
        rule.evaluate(status_context({"spec": {"replicas": 2}}, []))

    assert str(caught.value).startswith("templates/web/kind.yaml:12: conditions[0].status: ZeroDivisionError")
    assert caught.value.reason == "ExpressionFailed"


def test_expression_empty_text_is_refused() -> None:
    with pytest.raises(KindError, match="non-empty"):
        compile_at_line_12("  ")
