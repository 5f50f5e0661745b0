"""Each type and marker of a kind.yaml schema field says one thing of the CRD's OpenAPI schema."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.unit import _schema_kinds

CASES: list[tuple[str, dict[str, Any]]] = [
    ("string", {"type": "string"}),
    ("integer", {"type": "integer"}),
    ("boolean", {"type": "boolean"}),
    ("number", {"type": "number"}),
    ("float", {"type": "number"}),
    ("object", {"type": "object", "x-kubernetes-preserve-unknown-fields": True}),
    ('"[]string"', {"type": "array", "items": {"type": "string"}}),
    ("map[string]integer", {"type": "object", "additionalProperties": {"type": "integer"}}),
    ('string | description="The image, e.g. x"', {"type": "string", "description": "The image, e.g. x"}),
    ("integer | default=3", {"type": "integer", "default": 3}),
    ("string | default=3", {"type": "string", "default": "3"}),
    ('string | default="a b"', {"type": "string", "default": "a b"}),
    ("boolean | default=false", {"type": "boolean", "default": False}),
    ("number | default=0.5", {"type": "number", "default": 0.5}),
    ('"[]string | default=[\\"a\\"]"', {"type": "array", "items": {"type": "string"}, "default": ["a"]}),
    ("string | enum=fast,safe", {"type": "string", "enum": ["fast", "safe"]}),
    ("integer | enum=1,2", {"type": "integer", "enum": [1, 2]}),
    ("integer | minimum=0 maximum=9", {"type": "integer", "minimum": 0, "maximum": 9}),
    ("number | minimum=0.5", {"type": "number", "minimum": 0.5}),
    ("string | minLength=1 maxLength=8", {"type": "string", "minLength": 1, "maxLength": 8}),
    ('string | pattern="^[a-z]+$"', {"type": "string", "pattern": "^[a-z]+$"}),
    ("string | format=date-time", {"type": "string", "format": "date-time"}),
    (
        '"[]integer | minItems=1 maxItems=3"',
        {"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 3},
    ),
    (
        '"[]string | uniqueItems=true"',
        {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"},
    ),
    (
        "map[string]string | minProperties=1",
        {"type": "object", "additionalProperties": {"type": "string"}, "minProperties": 1},
    ),
    (
        "string | immutable=true",
        {
            "type": "string",
            "x-kubernetes-validations": [{"rule": "self == oldSelf", "message": "is immutable"}],
        },
    ),
    ("intOrString", {"x-kubernetes-int-or-string": True}),
    ("intOrString | default=8", {"x-kubernetes-int-or-string": True, "default": 8}),
    ("'intOrString | default=\"8\"'", {"x-kubernetes-int-or-string": True, "default": "8"}),
    ("intOrString | default=8.0", {"x-kubernetes-int-or-string": True, "default": "8.0"}),
    (
        "intOrString | minimum=0 maxLength=4 pattern=^[0-9.]+$",
        {"x-kubernetes-int-or-string": True, "minimum": 0, "maxLength": 4, "pattern": "^[0-9.]+$"},
    ),
    ("{host: string}", {"type": "object", "properties": {"host": {"type": "string"}}}),
    (
        "{port: integer | default=80}",
        {"type": "object", "properties": {"port": {"type": "integer", "default": 80}}, "default": {}},
    ),
    (
        "[{port: integer | required=true}]",
        {
            "type": "array",
            "items": {"type": "object", "properties": {"port": {"type": "integer"}}, "required": ["port"]},
        },
    ),
    (
        '"[]Peer"\n  types: {Peer: {name: string}}',
        {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}}}},
    ),
]


@pytest.mark.parametrize(("text", "expected"), CASES, ids=[text for text, _ in CASES])
def test_schema_field_text_becomes_its_openapi_schema(
    tmp_path: Path, text: str, expected: dict[str, Any]
) -> None:
    generated = _schema_kinds.crd(tmp_path, f"schema:\n  spec:\n    field: {text}\n")
    assert json.dumps(_schema_kinds.spec_of(generated)["properties"]["field"], sort_keys=True) == json.dumps(
        expected, sort_keys=True
    )


def test_required_fields_are_listed_on_their_object_and_the_spec_on_the_root(tmp_path: Path) -> None:
    text = "schema:\n  spec:\n    image: string | required=true\n    tag: string\n"
    generated = _schema_kinds.crd(tmp_path, text)
    root = generated["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    assert _schema_kinds.spec_of(generated)["required"] == ["image"]
    assert root["required"] == ["spec"]
    assert "default" not in _schema_kinds.spec_of(generated)


def test_validations_go_on_the_spec(tmp_path: Path) -> None:
    text = "schema:\n  spec:\n    n: integer\n  validations:\n    - {rule: self.n < 3, message: too many}\n"
    spec = _schema_kinds.spec_of(_schema_kinds.crd(tmp_path, text))
    assert spec["x-kubernetes-validations"] == [{"rule": "self.n < 3", "message": "too many"}]
