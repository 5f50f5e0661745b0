"""The published kind.yaml schema, read by a plain JSON Schema validator (as an editor reads it),
takes a template entry as a file name or as {file, id, after}, and refuses a bad id where it is."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
HEAD = {
    "apiVersion": "stencil.dev/v1alpha1",
    "kind": "StencilKind",
    "parent": {"apiVersion": "example.com/v1", "kind": "Web"},
}


def validator() -> jsonschema.Draft202012Validator:
    text = resources.files("engine").joinpath("schemas", "kind.schema.json").read_text(encoding="utf-8")
    schema = json.loads(text)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def problems(templates: list[Any]) -> list[tuple[list[Any], str]]:
    return [
        (list(e.absolute_path), e.message) for e in validator().iter_errors({**HEAD, "templates": templates})
    ]


@pytest.mark.parametrize("folder", sorted(p.name for p in TEMPLATES.iterdir() if (p / "kind.yaml").is_file()))
def test_every_shipped_kind_yaml_is_valid(folder: str) -> None:
    # As JSON, which is what a JSON Schema reads: a YAML key `True:` is the string "true".
    data = json.loads(json.dumps(yaml.safe_load((TEMPLATES / folder / "kind.yaml").read_text())))
    assert [e.message for e in validator().iter_errors(data)] == []


def test_both_forms_are_accepted() -> None:
    assert problems(["a.yaml", {"file": "b.yaml", "id": "bee", "after": ["a"]}, {"file": "c.yaml.j2"}]) == []


def test_a_bad_id_is_reported_at_the_id() -> None:
    assert [path for path, _ in problems([{"file": "b.yaml", "id": "Bee"}])] == [["templates", 0, "id"]]


def test_a_mapping_needs_a_file() -> None:
    assert [path for path, _ in problems([{"id": "bee"}])] == [["templates", 0]]
