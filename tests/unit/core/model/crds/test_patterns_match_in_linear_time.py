"""Patterns are matched with RE2, as the API server's Go regexp matches them: a pattern that
backtracks exponentially in Python's ``re`` answers at once, and ``$`` means the end of the text."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from engine.core.model.crds import formats
from tests.unit import _crs

NESTED = "^(a+)+$"


def test_a_hostile_value_against_a_nested_quantifier_is_refused(tmp_path: Path) -> None:
    schema = {"type": "object", "properties": {"name": {"type": "string", "pattern": NESTED}}}
    hostile = "a" * 100_000 + "!"

    problems, _ = _crs.check(tmp_path, schema, {"name": hostile})

    (error,) = problems
    assert error.field == "spec.name"
    assert NESTED in error.message


@given(st.text(alphabet="ab!", max_size=60))
def test_a_nested_quantifier_matches_exactly_the_runs_of_a(text: str) -> None:
    assert formats.search(NESTED, text) == (text != "" and set(text) == {"a"})


def test_dollar_does_not_match_before_a_trailing_newline(tmp_path: Path) -> None:
    schema = {"type": "object", "properties": {"name": {"type": "string", "pattern": "^[a-z]+$"}}}

    problems, _ = _crs.check(tmp_path, schema, {"name": "web\n"})

    assert [error.field for error in problems] == ["spec.name"]
