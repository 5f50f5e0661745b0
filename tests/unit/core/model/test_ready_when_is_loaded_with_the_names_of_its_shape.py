"""``readyWhen`` in kind.yaml is one rule or a list, compiled at load: one child reads as ``child``,
a collection's items as ``each`` and the list as ``all``; a name of the other shape, or any other
unknown name, is a KindError at the rule's line and field."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.core.model import kinds
from engine.core.model.errors import KindError
from tests.unit import _kinds

LIST_LINE = 6  # the line of `templates:` after _kinds.KIND_YAML's five lines


def _folder(tmp_path: Path, templates: str) -> Path:
    (tmp_path / "kind.yaml").write_text(_kinds.KIND_YAML + templates)
    (tmp_path / "job.yaml").write_text("x: 1\n")
    return tmp_path


def _refused(tmp_path: Path, templates: str) -> KindError:
    with pytest.raises(KindError) as caught:
        kinds.load_kind(_folder(tmp_path, templates))
    assert caught.value.file == str(tmp_path / "kind.yaml")
    return caught.value


def test_one_rule_and_a_list_are_loaded_with_their_lines(tmp_path: Path) -> None:
    folder = _folder(
        tmp_path,
        "templates:\n  - file: job.yaml\n    readyWhen:\n      - child.status.succeeded >= 1\n"
        "      - child.status.active == 0\n",
    )
    (template,) = kinds.load_kind(folder).templates
    assert [(r.text, r.line, r.field) for r in template.ready_when] == [
        ("child.status.succeeded >= 1", LIST_LINE + 3, "templates[0].readyWhen[0]"),
        ("child.status.active == 0", LIST_LINE + 4, "templates[0].readyWhen[1]"),
    ]
    assert not template.collection


def test_a_collection_reads_each_and_all(tmp_path: Path) -> None:
    folder = _folder(
        tmp_path, "templates:\n  - {file: job.yaml, collection: true, readyWhen: 'each.x and all | length'}\n"
    )
    (template,) = kinds.load_kind(folder).templates
    assert template.collection and template.ready_when[0].reads == {"each", "all"}


def test_each_in_a_template_of_one_child_is_refused_at_its_line(tmp_path: Path) -> None:
    error = _refused(tmp_path, "templates:\n  - file: job.yaml\n    readyWhen: each.status.succeeded\n")
    assert (error.line, error.field) == (LIST_LINE + 2, "templates[0].readyWhen")
    assert "each and all are a collection's: say collection: true" in error.message


def test_child_in_a_collection_is_refused_at_its_line(tmp_path: Path) -> None:
    error = _refused(tmp_path, "templates:\n  - {file: job.yaml, collection: true, readyWhen: [child.x]}\n")
    assert (error.line, error.field) == (LIST_LINE + 1, "templates[0].readyWhen[0]")
    assert "reads each (one item) or all (the list), not child" in error.message


def test_a_status_rule_name_is_unknown_in_ready_when(tmp_path: Path) -> None:
    error = _refused(tmp_path, "templates:\n  - {file: job.yaml, readyWhen: 'spec.replicas > 0'}\n")
    assert "unknown name spec" in error.message and "(known: child)" in error.message
