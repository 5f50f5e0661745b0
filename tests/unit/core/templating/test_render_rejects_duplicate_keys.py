"""Duplicate keys are an error, whether written in the template or made by filling in values."""

from __future__ import annotations

import pytest

from engine.core.model.errors import RenderError
from engine.core.templating import rendering
from tests.unit import _kinds


def test_a_key_written_twice_in_a_template_is_an_error() -> None:
    kind = _kinds.kind(_kinds.configmap("  a: 1\n  b: 2\n  a: 3\n"))
    with pytest.raises(RenderError, match="duplicate key 'a'") as caught:
        rendering.render(kind, _kinds.parent(), [])
    assert caught.value.file == "templates/web/t0.yaml"


def test_a_value_that_makes_two_keys_equal_is_an_error() -> None:
    kind = _kinds.kind(_kinds.configmap("  app: fixed\n  {{ spec.key }}: from-cr\n"))
    with pytest.raises(RenderError, match="duplicate key 'app'") as caught:
        rendering.render(kind, _kinds.parent({"key": "app"}), [])
    assert caught.value.field == "data"


def test_distinct_values_make_distinct_keys() -> None:
    kind = _kinds.kind(_kinds.configmap("  app: fixed\n  {{ spec.key }}: from-cr\n"))
    [configmap] = rendering.render(kind, _kinds.parent({"key": "tier"}), [])
    assert configmap["data"] == {"app": "fixed", "tier": "from-cr"}
