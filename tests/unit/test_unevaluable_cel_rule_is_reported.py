"""A CEL rule that cannot be run offline is a note saying so, beside the rules that did run;
never a pass in silence."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit import _crs


def rules(*rules: str) -> dict[str, object]:
    return {
        "type": "object",
        "properties": {"name": {"type": "string"}, "size": {"type": "integer"}},
        "x-kubernetes-validations": [{"rule": rule} for rule in rules],
    }


@pytest.mark.parametrize(
    "rule",
    [
        pytest.param("self.name.noSuchFunction() == 'x'", id="unknown-function"),
        pytest.param("self.name.startsWith(", id="does-not-parse"),
        pytest.param("self.size + 'x' == 1", id="no-such-overload"),
    ],
)
def test_the_note_names_the_rule_and_the_field(tmp_path: Path, rule: str) -> None:
    problems, notes = _crs.check(tmp_path, rules(rule), {"name": "web", "size": 1})

    assert problems == []
    (note,) = notes
    assert f"cannot check rule {rule!r} offline" in note
    assert f"{tmp_path / 'cr.yaml'}:" in note
    assert ": spec: " in note


def test_the_rules_that_can_run_still_run(tmp_path: Path) -> None:
    problems, notes = _crs.check(
        tmp_path, rules("self.name.noSuchFunction()", "self.size > 1"), {"name": "w", "size": 1}
    )

    assert [error.message for error in problems] == [
        "failed rule: self.size > 1 (Invalid value: {'name': 'w', 'size': 1}; rule: self.size > 1)"
    ]
    assert len(notes) == 1


def test_a_rule_reading_a_missing_field_fails_as_on_the_server(tmp_path: Path) -> None:
    problems, notes = _crs.check(tmp_path, rules("self.size > 0"), {"name": "w"})

    assert [error.field for error in problems] == ["spec"]
    assert "no such" in problems[0].message
    assert notes == []
