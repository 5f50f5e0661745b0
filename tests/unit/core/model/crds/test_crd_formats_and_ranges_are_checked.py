"""What the API server checks beyond types is checked offline too: integer ranges of a format,
string formats, enums, sizes, int-or-string, kept unknown fields and embedded resources."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.core.model.crds import formats
from tests.unit import _crs

EMBEDDED = {
    "type": "object",
    "x-kubernetes-embedded-resource": True,
    "x-kubernetes-preserve-unknown-fields": True,
}

CASES = [
    pytest.param({"type": "integer", "format": "int32"}, 2**31, 2**31 - 1, id="int32"),
    pytest.param({"type": "integer", "format": "int32"}, -(2**31) - 1, -(2**31), id="int32-low"),
    # An integer beyond int64 is refused earlier, by the YAML reader (tests/campaign/test_numbers_*.py).
    pytest.param(
        {"type": "string", "format": "date-time"}, "yesterday", "2024-02-29T12:00:00Z", id="date-time"
    ),
    pytest.param(
        {"type": "string", "format": "date-time"},
        "2023-02-29T12:00:00Z",
        "2023-02-28T12:00:00Z",
        id="no-leap",
    ),
    pytest.param({"type": "string", "format": "ipv4"}, "10.0.0.256", "10.0.0.255", id="ipv4"),
    pytest.param({"type": "string", "format": "ipv6"}, "10.0.0.1", "fd00::1", id="ipv6"),
    pytest.param({"type": "string", "format": "cidr"}, "10.0.0.0", "10.0.0.0/8", id="cidr"),
    pytest.param(
        {"type": "string", "format": "uuid"}, "not-a-uuid", "123e4567-e89b-12d3-a456-426614174000", id="uuid"
    ),
    pytest.param({"type": "string", "format": "byte"}, "not base64!", "aGVsbG8=", id="byte"),
    pytest.param({"type": "string", "format": "hostname"}, "-web.example", "web.example", id="hostname"),
    pytest.param({"type": "string", "format": "email"}, "nobody", "nobody@example.com", id="email"),
    pytest.param({"type": "string", "enum": ["a", "b"]}, "c", "b", id="enum"),
    pytest.param(
        {"type": "object", "additionalProperties": {"type": "string"}, "minProperties": 1},
        {},
        {"k": "v"},
        id="min-properties",
    ),
    pytest.param(
        {"type": "object", "additionalProperties": {"type": "string"}, "maxProperties": 1},
        {"a": "1", "b": "2"},
        {"a": "1"},
        id="max-properties",
    ),
    pytest.param(
        {"type": "array", "items": {"type": "string"}, "maxItems": 1}, ["a", "b"], ["a"], id="max-items"
    ),
    pytest.param({"type": "string", "maxLength": 3}, "long", "abc", id="max-length"),
    pytest.param({"x-kubernetes-int-or-string": True}, ["80"], "http", id="int-or-string"),
    pytest.param({"x-kubernetes-int-or-string": True}, 1.5, 8080, id="int-or-string-number"),
    pytest.param(
        {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
        ["a", "a"],
        ["a", "b"],
        id="set",
    ),
    pytest.param(
        {
            "type": "array",
            "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["name"],
            "items": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "port": {"type": "integer"}},
            },
        },
        [{"name": "http", "port": 80}, {"name": "http", "port": 81}],
        [{"name": "http", "port": 80}, {"name": "https", "port": 443}],
        id="map",
    ),
    pytest.param(
        {"type": "object", "properties": {"a": {"type": "string"}}},
        {"a": "x", "b": "y"},
        {"a": "x"},
        id="unknown-field",
    ),
    pytest.param(
        EMBEDDED,
        {"apiVersion": "v1", "metadata": {"name": "c"}},
        {"apiVersion": "v1", "kind": "ConfigMap"},
        id="embedded-kind",
    ),
    pytest.param(
        EMBEDDED,
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"nam": "c"}},
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}},
        id="embedded-metadata",
    ),
]


@pytest.mark.parametrize(("schema", "bad", "good"), CASES)
def test_a_value_outside_the_schema_is_refused_at_its_field(
    tmp_path: Path, schema: dict[str, Any], bad: Any, good: Any
) -> None:
    spec_schema = {"type": "object", "properties": {"x": schema}}

    refused, _ = _crs.check(tmp_path / "bad", spec_schema, {"x": bad})
    admitted, _ = _crs.check(tmp_path / "good", spec_schema, {"x": good})

    assert len(refused) == 1
    assert refused[0].field is not None and refused[0].field.startswith("spec.x")
    assert refused[0].file == str(tmp_path / "bad" / "cr.yaml")
    assert admitted == []


def test_preserve_unknown_fields_keeps_what_the_schema_does_not_name(tmp_path: Path) -> None:
    schema = {
        "type": "object",
        "x-kubernetes-preserve-unknown-fields": True,
        "properties": {"a": {"type": "string"}},
    }

    assert _crs.check(tmp_path, schema, {"a": "x", "anything": {"deep": [1, 2]}}) == ([], [])


def test_a_field_inside_kept_unknown_fields_is_still_checked_when_named(tmp_path: Path) -> None:
    schema = {
        "type": "object",
        "x-kubernetes-preserve-unknown-fields": True,
        "properties": {"a": {"type": "string"}},
    }

    problems, _ = _crs.check(tmp_path, schema, {"a": 1, "anything": True})

    assert [error.field for error in problems] == ["spec.a"]


def test_null_is_admitted_only_where_nullable(tmp_path: Path) -> None:
    nullable = {
        "type": "object",
        "properties": {"x": {"type": "array", "nullable": True, "items": {"type": "string"}}},
    }
    required = {
        "type": "object",
        "required": ["x"],
        "properties": {"x": {"type": "array", "items": {"type": "string"}}},
    }

    assert _crs.check(tmp_path / "nullable", nullable, {"x": None}) == ([], [])
    problems, _ = _crs.check(tmp_path / "pruned", required, {"x": None})
    assert [error.message for error in problems] == ["missing required field 'x'"]


@given(st.text(max_size=40))
def test_every_format_answers_yes_or_no_for_any_text(text: str) -> None:
    for check in formats.STRING_FORMATS.values():
        assert isinstance(check(text), bool)
