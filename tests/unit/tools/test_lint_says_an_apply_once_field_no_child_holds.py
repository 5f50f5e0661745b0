"""``stencil lint`` says, at its templates: entry in kind.yaml, an ``applyOnce`` field that no child
its template renders for the examples holds (``spec.replcas``): it hands nothing to other writers,
and the real field stays the engine's.  A field the children hold is no finding."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.tools import linter
from tests.unit import _lintkinds

TEMPLATE = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: '{{ name }}'\ndata:\n  replicas: '2'\n"


@pytest.mark.parametrize(("path", "found"), [("data.replcas", True), ("data.replicas", False)])
def test_an_apply_once_field_no_child_holds_is_said_at_its_entry(
    tmp_path: Path, path: str, found: bool
) -> None:
    entry = f"templates:\n  - {{file: cm.yaml, applyOnce: [{path}]}}\n"
    folder = _lintkinds.kind_folder(tmp_path, {"cm.yaml": TEMPLATE}, kind_yaml_extra=entry)
    said = [f for f in linter.lint([folder]) if f.check == "apply-once"]
    assert bool(said) is found, said
    if found:
        lines = (folder / "kind.yaml").read_text().splitlines()
        assert said[0].file.endswith("kind.yaml") and "file: cm.yaml" in lines[said[0].line - 1], said
        assert "data.replcas" in said[0].message
