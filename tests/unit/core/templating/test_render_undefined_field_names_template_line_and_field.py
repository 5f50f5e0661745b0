"""A template reading a CR field that is not set fails naming the template, its line and the field."""

from __future__ import annotations

import pytest

from engine.core.model.errors import RenderError
from engine.core.templating import rendering
from tests.unit import _kinds

TEMPLATE = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ name }}
spec:
  replicas: {{ spec.replicas }}
  template:
    spec:
      containers:
        - image: {{ spec.image.repository }}:{{ spec.image.tag }}
"""


def test_a_missing_top_level_field_is_named() -> None:
    with pytest.raises(RenderError) as caught:
        rendering.render(_kinds.kind(TEMPLATE), _kinds.parent({"image": {"repository": "r", "tag": "t"}}), [])
    error = caught.value
    assert (error.file, error.line, error.field) == ("templates/web/t0.yaml", 6, "spec.replicas")
    assert str(error).startswith("templates/web/t0.yaml:6: spec.replicas: not set")


def test_a_missing_nested_field_is_named_with_its_path() -> None:
    with pytest.raises(RenderError) as caught:
        rendering.render(
            _kinds.kind(TEMPLATE), _kinds.parent({"replicas": 1, "image": {"repository": "r"}}), []
        )
    assert (caught.value.line, caught.value.field) == (10, "spec.image.tag")


def test_the_first_missing_field_of_a_chain_is_named() -> None:
    with pytest.raises(RenderError) as caught:
        rendering.render(_kinds.kind(TEMPLATE), _kinds.parent({"replicas": 1}), [])
    assert caught.value.field == "spec.image"


def test_a_missing_list_item_is_named_by_index() -> None:
    kind = _kinds.kind(_kinds.configmap("  port: {{ spec.ports[1].port }}\n"))
    with pytest.raises(RenderError) as caught:
        rendering.render(kind, _kinds.parent({"ports": [{"port": 80}]}), [])
    assert (caught.value.line, caught.value.field) == (6, "spec.ports[1]")


def test_an_optional_field_can_be_tested_or_defaulted() -> None:
    kind = _kinds.kind(
        _kinds.configmap(
            "  a: {{ spec.tier | default('basic') }}\n"
            "{% if spec.extra is defined %}\n  b: {{ spec.extra }}\n{% endif %}\n"
        )
    )
    [configmap] = rendering.render(kind, _kinds.parent({}), [])
    assert configmap["data"] == {"a": "basic"}


def test_an_unknown_variable_is_named() -> None:
    kind = _kinds.kind(_kinds.configmap("  a: {{ spce.replicas }}\n"))
    with pytest.raises(RenderError, match="'spce' is undefined") as caught:
        rendering.render(kind, _kinds.parent({"replicas": 1}), [])
    assert caught.value.line == 6
