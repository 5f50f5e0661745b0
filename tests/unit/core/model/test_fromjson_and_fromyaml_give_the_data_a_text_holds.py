"""`fromjson` and `fromyaml` parse a text into data, in templates and status rules alike."""

from __future__ import annotations

import pytest

from engine.core.model.errors import KindError
from tests.unit._library import render_data, rule

SPEC = {"json": '{"replicas": 3, "tags": ["a", "b"]}', "yaml": "replicas: 3\ntags: [a, b]\n"}


def test_a_template_reads_fields_of_the_parsed_text() -> None:
    data = render_data(
        "  j: '{{ (spec.json | fromjson).tags[1] }}'\n  y: '{{ (spec.yaml | fromyaml).replicas }}'\n", SPEC
    )
    assert data == {"j": "b", "y": "3"}


def test_a_rule_reads_the_same_data() -> None:
    assert rule("(spec.json | fromjson) == (spec.yaml | fromyaml)", SPEC) is True
    assert rule("(spec.yaml | fromyaml).tags | length", SPEC) == 2


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("a: &x 1\nb: *x\n", "anchors and aliases"),
        ("a: 1\na: 2\n", "duplicate key"),
        ("when: !!timestamp 2024-01-01\n", "not YAML data"),
    ],
)
def test_yaml_is_read_by_the_strict_rules_of_every_yaml_file(text: str, problem: str) -> None:
    with pytest.raises(KindError, match=problem):
        rule("spec.yaml | fromyaml", {"yaml": text})


@pytest.mark.parametrize(
    ("text", "problem"),
    [('{"a": 1, "a": 2}', "duplicate key"), ("[NaN]", "NaN is not JSON"), ("[1e999]", "JSON")],
)
def test_json_is_json_data_only(text: str, problem: str) -> None:
    with pytest.raises(KindError, match=problem):
        rule("spec.json | fromjson", {"json": text})
