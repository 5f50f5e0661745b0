"""Templates run in Jinja's immutable sandbox: no Python internals, no changing what they read."""

from __future__ import annotations

import pytest

from engine.core.model.errors import RenderError
from engine.core.templating import rendering
from tests.unit import _kinds


@pytest.mark.parametrize(
    "expression",
    ["spec.__class__", "spec._data", "name.__len__()", "spec.list.append(1)", "''.__class__.__mro__"],
)
def test_internals_and_mutation_are_refused(expression: str) -> None:
    template = _kinds.configmap(f"  a: {{{{ {expression} }}}}\n")
    with pytest.raises(RenderError, match=r"not allowed in a template|has no attribute") as caught:
        rendering.render(_kinds.kind(template), _kinds.parent({"list": [1]}), [])
    assert caught.value.line == 6


def test_rendering_is_deterministic() -> None:
    template = _kinds.configmap("  a: {{ spec.x }}\n  b: '{{ spec.x }}-{{ name }}'\n")
    kind = _kinds.kind(template)
    assert rendering.render(kind, _kinds.parent({"x": 1}), []) == rendering.render(
        kind, _kinds.parent({"x": 1}), []
    )
