"""A number a template computes must be one JSON and the API server can hold: no infinity or NaN,
no integer beyond int64, each refused at its template line."""

from __future__ import annotations

import pytest

from engine.core.model.errors import RenderError
from engine.core.templating import rendering
from tests.unit import _kinds


@pytest.mark.parametrize(
    "expression",
    ["1e308 * 10", "-1e308 * 10", "(1e308 * 10) - (1e308 * 10)", "2 ** 63", "-(2 ** 63) - 1", "[2 ** 64]"],
)
def test_a_number_json_cannot_hold_is_refused(expression: str) -> None:
    template = _kinds.configmap(f"  v: {{{{ {expression} }}}}\n")
    with pytest.raises(RenderError) as caught:
        rendering.render(_kinds.kind(template), _kinds.parent(), [])
    assert caught.value.file == "templates/web/t0.yaml"


@pytest.mark.parametrize("expression", ["2 ** 63 - 1", "-(2 ** 63)", "1e308", "0.5"])
def test_the_numbers_at_the_edges_render(expression: str) -> None:
    template = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  annotations:\n    x: x\n"
    template += f"binaryData: {{}}\ndata: {{}}\nimmutable: false\nspec:\n  v: {{{{ {expression} }}}}\n"
    [child] = rendering.render(_kinds.kind(template), _kinds.parent(), [])
    assert child["spec"]["v"] == eval(expression)
