"""Without a templates list, every *.yaml and *.yaml.j2 file beside kind.yaml is a template, sorted."""

from __future__ import annotations

from pathlib import Path

from engine.core.model import kinds
from tests.unit import _kinds

KIND_YAML = _kinds.KIND_YAML


def test_default_templates_are_the_sorted_yaml_files(tmp_path: Path) -> None:
    (tmp_path / "kind.yaml").write_text(KIND_YAML)
    for name in ("b.yaml", "a.yaml.j2", "notes.md", "c.yml"):
        (tmp_path / name).write_text("x: 1\n")
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "e.yaml").write_text("x: 1\n")
    kind = kinds.load_kind(tmp_path)
    assert [t.name for t in kind.templates] == ["a.yaml.j2", "b.yaml"]
    assert kind.examples == (tmp_path / "examples" / "e.yaml",)


def test_a_templates_list_chooses_and_orders(tmp_path: Path) -> None:
    (tmp_path / "kind.yaml").write_text(KIND_YAML + "templates: [b.yaml, a.yaml]\n")
    for name in ("a.yaml", "b.yaml", "c.yaml"):
        (tmp_path / name).write_text(f"name: {name}\n")
    kind = kinds.load_kind(tmp_path)
    assert [(t.name, t.text) for t in kind.templates] == [
        ("b.yaml", "name: b.yaml\n"),
        ("a.yaml", "name: a.yaml\n"),
    ]
