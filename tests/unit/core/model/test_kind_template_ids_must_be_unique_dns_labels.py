"""A template id that is used twice, is not a DNS-1123 label, or names a method of the children
mapping is a KindError at the line of kind.yaml that gives it (or naming the file when no list does)."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.core.model import kinds
from engine.core.model.errors import KindError
from tests.unit import _kinds

# _kinds.KIND_YAML is five lines long: the templates list starts on line 6.
LIST_LINE = 6


def _load(tmp_path: Path, templates: str, files: tuple[str, ...]) -> KindError:
    (tmp_path / "kind.yaml").write_text(_kinds.KIND_YAML + templates)
    for name in files:
        (tmp_path / name).write_text("x: 1\n")
    with pytest.raises(KindError) as caught:
        kinds.load_kind(tmp_path)
    return caught.value


def test_an_id_given_twice_is_refused_at_its_line(tmp_path: Path) -> None:
    error = _load(
        tmp_path,
        "templates:\n  - a.yaml\n  - file: b.yaml\n    id: a\n",
        ("a.yaml", "b.yaml"),
    )
    assert (error.file, error.line, error.field) == (
        str(tmp_path / "kind.yaml"),
        LIST_LINE + 3,
        "templates[1].id",
    )
    assert "'a' is used twice" in error.message


def test_two_files_with_one_stem_are_refused_naming_the_file(tmp_path: Path) -> None:
    error = _load(tmp_path, "", ("web.yaml", "web.yaml.j2"))
    assert error.file == str(tmp_path / "web.yaml.j2")
    assert "'web' is used twice" in error.message


@pytest.mark.parametrize("bad", ["Web", "web_app", "-web", "a" * 64])
def test_an_id_that_is_not_a_dns_label_is_refused_at_its_line(tmp_path: Path, bad: str) -> None:
    error = _load(tmp_path, f"templates:\n  - file: web.yaml\n    id: '{bad}'\n", ("web.yaml",))
    assert (error.line, error.field) == (LIST_LINE + 2, "templates[0].id")


def test_a_file_stem_that_is_not_a_dns_label_asks_for_an_id(tmp_path: Path) -> None:
    error = _load(tmp_path, "templates: [Web_App.yaml]\n", ("Web_App.yaml",))
    assert (error.line, error.field) == (LIST_LINE, "templates[0]")
    assert "give it one" in error.message


def test_an_id_the_children_mapping_would_hide_is_refused(tmp_path: Path) -> None:
    error = _load(tmp_path, "templates:\n  - {file: web.yaml, id: items}\n", ("web.yaml",))
    assert (error.line, error.field) == (LIST_LINE + 1, "templates[0].id")
    assert "children.items" in error.message


def test_an_entry_that_is_neither_a_file_nor_a_mapping_is_refused(tmp_path: Path) -> None:
    error = _load(tmp_path, "templates:\n  - 3\n", ())
    assert (error.line, error.field) == (LIST_LINE + 1, "templates[0]")


def test_a_mapping_entry_with_an_unknown_field_is_refused(tmp_path: Path) -> None:
    error = _load(tmp_path, "templates:\n  - file: web.yaml\n    waitFor: [x]\n", ("web.yaml",))
    assert (error.line, error.field) == (LIST_LINE + 2, "templates[0].waitFor")
