"""YAML anchors and aliases are refused in templates: a manifest reads as what it says."""

from __future__ import annotations

import pytest

from engine.core.model.errors import RenderError
from engine.core.templating import rendering
from tests.unit import _kinds


@pytest.mark.parametrize(
    "data",
    ["  a: &x 1\n  b: *x\n", "  a: &x 1\n", "  base: &b {k: v}\n  c:\n    <<: *b\n"],
    ids=["alias", "anchor alone", "merge key"],
)
def test_anchors_and_aliases_are_refused(data: str) -> None:
    with pytest.raises(RenderError, match="anchors and aliases") as caught:
        rendering.render(_kinds.kind(_kinds.configmap(data)), _kinds.parent(), [])
    assert caught.value.file == "templates/web/t0.yaml"


def test_a_merge_key_without_an_alias_is_refused() -> None:
    with pytest.raises(RenderError, match="merge keys"):
        rendering.render(_kinds.kind(_kinds.configmap("  <<: {a: b}\n")), _kinds.parent(), [])
