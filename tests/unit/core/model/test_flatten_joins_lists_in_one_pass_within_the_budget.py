"""``flatten`` joins a list of lists, as ``sum`` of lists would (which ``sum`` refuses: each addition
copies the total), in one pass charged to the budget; a wrong input is an error at its line."""

from __future__ import annotations

import pytest

from engine.core.model.errors import KindError, RenderError
from tests.unit._library import render_data, rule


def test_a_template_and_a_rule_flatten_lists_of_the_parent() -> None:
    lists = {"groups": [["a", "b"], [], [{"c": 1}]]}

    assert rule("spec.groups | flatten", lists) == ["a", "b", {"c": 1}]
    assert render_data("  x: x\n  n: '{{ spec.groups | flatten | length }}'\n", lists)["n"] == "3"


def test_sum_of_lists_is_still_refused_and_flatten_is_what_to_use() -> None:
    with pytest.raises(KindError, match="sum adds numbers"):
        rule("spec.groups | sum(start=[])", {"groups": [[1], [2]]})


def test_flatten_of_what_is_not_a_list_of_lists_fails_at_its_line() -> None:
    with pytest.raises(RenderError, match="flatten takes a list of lists") as caught:
        render_data("  x: x\n  n: '{{ spec.groups | flatten }}'\n", {"groups": ["ab", "cd"]})
    assert caught.value.line == 7


def test_flattening_more_items_than_the_budget_holds_is_refused() -> None:
    many = {"groups": [[0] * 1000] * 3000}  # three million items, from a parent of a few KiB of YAML
    with pytest.raises(KindError) as caught:
        rule("spec.groups | flatten | length", many)
    assert caught.value.reason == "OverBudget"
