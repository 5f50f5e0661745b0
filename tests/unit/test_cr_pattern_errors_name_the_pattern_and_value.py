"""A value that misses its field's pattern is refused naming the pattern and the value,
not the field's description."""

from __future__ import annotations

from pathlib import Path

from tests.unit import _crs

PATTERN = "^[a-z]+(-[a-z]+)*$"
DESCRIPTION = "A tier name, lower case words joined by dashes."


def test_the_message_names_the_pattern_and_the_value_at_the_fields_line(tmp_path: Path) -> None:
    schema = {
        "type": "object",
        "properties": {"tier": {"type": "string", "pattern": PATTERN, "description": DESCRIPTION}},
    }

    problems, notes = _crs.check(tmp_path, schema, {"tier": "Front_End"})

    (error,) = problems
    assert (error.file, error.field) == (str(tmp_path / "cr.yaml"), "spec.tier")
    assert error.line == (tmp_path / "cr.yaml").read_text().splitlines().index("  tier: Front_End") + 1
    assert PATTERN in error.message
    assert "'Front_End'" in error.message
    assert DESCRIPTION not in error.message
    assert notes == []


def test_a_value_that_matches_is_admitted(tmp_path: Path) -> None:
    schema = {"type": "object", "properties": {"tier": {"type": "string", "pattern": PATTERN}}}

    assert _crs.check(tmp_path, schema, {"tier": "front-end"}) == ([], [])


def test_patterns_are_unanchored_as_in_json_schema(tmp_path: Path) -> None:
    schema = {"type": "object", "properties": {"tier": {"type": "string", "pattern": "[0-9]"}}}

    assert _crs.check(tmp_path, schema, {"tier": "web2"}) == ([], [])
