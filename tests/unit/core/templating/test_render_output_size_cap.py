"""A template's output, values included, is capped; a huge CR value cannot flood the engine."""

from __future__ import annotations

import pytest

from engine.core.model.errors import RenderError
from engine.core.templating import rendering, sandbox
from tests.unit import _kinds

LIMITS = sandbox.Limits(output_chars=10_000)


def test_output_past_the_cap_is_refused() -> None:
    template = _kinds.configmap("{% for i in range(10000) %}  k{{ i }}: value\n{% endfor %}")
    with pytest.raises(RenderError, match="larger than 10000 characters") as caught:
        rendering.render(_kinds.kind(template), _kinds.parent(), [], limits=LIMITS)
    assert caught.value.file == "templates/web/t0.yaml"


def test_interpolated_values_count_towards_the_cap() -> None:
    template = _kinds.configmap("{% for i in range(20) %}  k{{ i }}: {{ spec.big }}\n{% endfor %}")
    with pytest.raises(RenderError, match="larger than 10000 characters"):
        rendering.render(_kinds.kind(template), _kinds.parent({"big": "x" * 1000}), [], limits=LIMITS)


def test_repeating_a_string_past_the_cap_is_refused_before_it_is_built() -> None:
    template = _kinds.configmap("  a: {{ spec.big * 1000000000 }}\n")
    with pytest.raises(RenderError, match=r"`\*` would build \d+ characters"):
        rendering.render(_kinds.kind(template), _kinds.parent({"big": "x" * 1000}), [], limits=LIMITS)


def test_output_within_the_cap_renders() -> None:
    template = _kinds.configmap("{% for i in range(10) %}  k{{ i }}: {{ spec.big }}\n{% endfor %}")
    [configmap] = rendering.render(
        _kinds.kind(template), _kinds.parent({"big": "x" * 100}), [], limits=LIMITS
    )
    assert len(configmap["data"]) == 10
