"""``after:`` may only name ids of the folder's templates, and templates may not wait for each other:
either is a KindError at kind.yaml's line and field, so a parent can never wait for ever."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.core.model import kinds
from engine.core.model.errors import KindError
from tests.unit import _kinds

LIST_LINE = 6  # the line of `templates:` after _kinds.KIND_YAML's five lines


def _load(tmp_path: Path, templates: str) -> KindError:
    (tmp_path / "kind.yaml").write_text(_kinds.KIND_YAML + templates)
    for name in ("a.yaml", "b.yaml", "c.yaml"):
        (tmp_path / name).write_text("x: 1\n")
    with pytest.raises(KindError) as caught:
        kinds.load_kind(tmp_path)
    assert caught.value.file == str(tmp_path / "kind.yaml")
    return caught.value


def test_an_unknown_id_is_refused_at_its_line(tmp_path: Path) -> None:
    error = _load(tmp_path, "templates:\n  - a.yaml\n  - file: b.yaml\n    after: [a, nope]\n")
    assert (error.line, error.field) == (LIST_LINE + 3, "templates[1].after[1]")
    assert "'nope'" in error.message


def test_two_templates_waiting_for_each_other_are_refused(tmp_path: Path) -> None:
    error = _load(
        tmp_path,
        "templates:\n  - {file: a.yaml, after: [b]}\n  - {file: b.yaml, after: [a]}\n",
    )
    assert (error.line, error.field) == (LIST_LINE + 1, "templates[0].after")
    assert "a waits for b, b waits for a" in error.message


def test_a_longer_cycle_is_refused(tmp_path: Path) -> None:
    error = _load(
        tmp_path,
        "templates:\n  - {file: a.yaml, after: [c]}\n  - {file: b.yaml, after: [a]}\n"
        "  - {file: c.yaml, after: [b]}\n",
    )
    assert error.field == "templates[0].after"
    assert "a waits for c, c waits for b, b waits for a" in error.message


def test_a_template_waiting_for_itself_is_refused(tmp_path: Path) -> None:
    error = _load(tmp_path, "templates:\n  - a.yaml\n  - {file: b.yaml, after: [b]}\n")
    assert (error.line, error.field) == (LIST_LINE + 2, "templates[1].after")


def test_a_chain_without_a_cycle_loads(tmp_path: Path) -> None:
    (tmp_path / "kind.yaml").write_text(
        _kinds.KIND_YAML
        + "templates:\n  - a.yaml\n  - {file: b.yaml, after: [a]}\n  - {file: c.yaml, after: [a, b]}\n"
    )
    for name in ("a.yaml", "b.yaml", "c.yaml"):
        (tmp_path / name).write_text("x: 1\n")
    assert [t.after for t in kinds.load_kind(tmp_path).templates] == [(), ("a",), ("a", "b")]
