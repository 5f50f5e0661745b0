"""A partial (``_*.yaml``, ``_*.j2``) is not a template: the folder's default templates leave it
out, it renders no child of its own, and listing it under ``templates:`` is an error at its line."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.core.model import kinds
from engine.core.model.errors import KindError
from engine.core.templating import rendering
from tests.unit import _kinds

LABELS = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: '{{ name }}-labels'\n"


def test_a_partial_is_no_template_and_renders_no_child(tmp_path: Path) -> None:
    folder = _kinds.kind_folder(tmp_path)
    (folder / "_labels.yaml").write_text(LABELS)
    (folder / "_macros.j2").write_text("{% macro m() %}x{% endmacro %}\n")

    kind = kinds.load_kind(folder)

    assert [t.name for t in kind.templates] == ["cm.yaml"]
    assert [p.name for p in kind.partials] == ["_labels.yaml", "_macros.j2"]
    assert [child["kind"] for child in rendering.render(kind, _kinds.parent(), [])] == ["ConfigMap"]


def test_a_partial_listed_as_a_template_is_an_error_at_its_line(tmp_path: Path) -> None:
    folder = _kinds.kind_folder(tmp_path, "templates:\n  - cm.yaml\n  - {file: _labels.yaml, id: labels}\n")
    (folder / "_labels.yaml").write_text(LABELS)

    with pytest.raises(KindError) as caught:
        kinds.load_kind(folder)

    assert (caught.value.file, caught.value.line) == (str(folder / "kind.yaml"), 8)
    assert "'_labels.yaml' is a partial" in caught.value.message
