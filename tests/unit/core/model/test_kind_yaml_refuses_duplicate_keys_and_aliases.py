"""kind.yaml is read strictly: duplicate keys, anchors and aliases are errors with their line."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.core.model import kinds
from engine.core.model.errors import KindError


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("apiVersion: a\nkind: StencilKind\napiVersion: b\n", 3, "duplicate key 'apiVersion'"),
        (
            "apiVersion: stencil.dev/v1alpha1\nkind: StencilKind\nparent: &p {apiVersion: x/v1, kind: A}\n",
            3,
            "anchors and aliases",
        ),
        ("a: &x 1\nb: *x\n", 1, "anchors and aliases"),
        ("a: [1\n", 2, "expected ',' or ']'"),
        ("a: 1\n---\nb: 2\n", None, "more than one document"),
        ("", None, "empty"),
    ],
)
def test_strict_yaml_errors_are_located(tmp_path: Path, text: str, line: int | None, message: str) -> None:
    (tmp_path / "kind.yaml").write_text(text)
    with pytest.raises(KindError, match=message) as caught:
        kinds.load_kind(tmp_path)
    assert caught.value.line == line
