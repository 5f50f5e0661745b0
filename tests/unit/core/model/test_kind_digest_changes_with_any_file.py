"""A kind's digest covers every file of its folder, by path and content."""

from __future__ import annotations

from pathlib import Path

from engine.core.model import kinds
from tests.unit import _kinds

KIND_YAML = _kinds.KIND_YAML


def digest(folder: Path) -> str:
    return kinds.load_kind(folder).digest


def test_the_digest_follows_templates_examples_and_renames(tmp_path: Path) -> None:
    (tmp_path / "kind.yaml").write_text(KIND_YAML)
    (tmp_path / "t.yaml").write_text("a: 1\n")
    first = digest(tmp_path)
    assert digest(tmp_path) == first
    (tmp_path / "t.yaml").write_text("a: 2\n")
    second = digest(tmp_path)
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "e.yaml").write_text("x: 1\n")
    third = digest(tmp_path)
    (tmp_path / "t.yaml").rename(tmp_path / "u.yaml")
    fourth = digest(tmp_path)
    assert len({first, second, third, fourth}) == 4
