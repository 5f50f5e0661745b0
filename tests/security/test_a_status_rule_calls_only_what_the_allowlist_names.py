"""A status rule calls only the methods, filters and helpers the engine knows and bounds: a
method or filter nobody has sized (a copy of a list, Markup's backtracking ``striptags``,
a classmethod reached through a value, ``lipsum``) is refused at the rule's kind.yaml line,
when the kind is loaded or when the rule runs, never run."""

from __future__ import annotations

import pytest

from engine.core.decisions.context import status_context
from engine.core.model.errors import KindError
from engine.core.model.language import expressions

SPEC = {"list": [1, 2], "map": {"a": 1}, "text": "<!--" * 200}
WHERE = "templates/web/kind.yaml:7: conditions[0].status: "

AT_RUN_TIME = {
    "list-copy": "spec.list.copy() | length",
    "markup-striptags": "(spec.text | e).striptags()",
    "classmethod": "spec.map.fromkeys(spec.list) | length",
}
AT_LOAD_TIME = {
    "striptags-filter": "spec.text | striptags",
    "urlize-filter": "spec.text | urlize",
    "pprint-filter": "spec.map | pprint",
    "lipsum": "lipsum(2)",
}


def _compile(rule: str) -> expressions.Expression:
    return expressions.compile_expression(
        rule, file="templates/web/kind.yaml", line=7, field="conditions[0].status"
    )


@pytest.mark.parametrize("rule", AT_RUN_TIME.values(), ids=AT_RUN_TIME.keys())
def test_a_call_off_the_allowlist_is_refused_when_the_rule_runs(rule: str) -> None:
    context = status_context({"metadata": {"name": "web"}, "spec": SPEC}, ())
    with pytest.raises(KindError) as raised:
        _compile(rule).evaluate(context)
    assert raised.value.reason == "NotAllowed", str(raised.value)
    assert str(raised.value).startswith(WHERE)
    assert "not among the operations allowed" in str(raised.value)


@pytest.mark.parametrize("rule", AT_LOAD_TIME.values(), ids=AT_LOAD_TIME.keys())
def test_a_filter_or_helper_off_the_allowlist_is_refused_when_the_kind_loads(rule: str) -> None:
    with pytest.raises(KindError) as raised:
        _compile(rule)
    assert str(raised.value).startswith(WHERE)
