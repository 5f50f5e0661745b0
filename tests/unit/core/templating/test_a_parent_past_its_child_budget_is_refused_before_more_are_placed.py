"""A parent may have at most so many children: 2,000 unless the kind's placement.maxChildren (or
the engine's --max-children) says fewer.  One that renders more is refused at the template that
crossed the budget, with reason TooManyChildren and as a terminal error, before the child past it
is placed; the load of kind.yaml reads the budget, and refuses one that is no positive number."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from engine.core.model import kinds
from engine.core.model.errors import KindError, TooManyChildren
from engine.core.templating import rendering
from tests.unit import _kinds

MANY = (
    "{% for i in range(spec.n) %}---\napiVersion: v1\nkind: ConfigMap\n"
    "metadata:\n  name: {{ name }}-{{ i }}\n{% endfor %}\n"
)
ONE = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ name }}-one\n"


def many(limit: int | None) -> kinds.Kind:
    kind = _kinds.kind(ONE, MANY, names=("one.yaml", "many.yaml"))
    templates = (kind.templates[0], kinds.Template(kind.templates[1].path, MANY, collection=True))
    return dataclasses.replace(kind, templates=templates, placement=kinds.Placement(max_children=limit))


def test_a_parent_within_its_budget_renders_every_child() -> None:
    assert len(rendering.render(many(5), _kinds.parent({"n": 4}), [])) == 5


def test_the_child_past_the_kinds_budget_refuses_the_render_at_its_template() -> None:
    with pytest.raises(TooManyChildren) as caught:
        rendering.render(many(5), _kinds.parent({"n": 5}), [])
    error = caught.value
    assert error.reason == "TooManyChildren"
    assert error.terminal
    assert error.file == str(_kinds.FOLDER / "many.yaml")
    assert error.line is not None
    assert "more than the 5 children a parent may have" in error.message


def test_without_a_kinds_budget_the_default_holds() -> None:
    assert len(rendering.render(many(None), _kinds.parent({"n": kinds.MAX_CHILDREN - 1}), [])) == 2000
    with pytest.raises(TooManyChildren, match=f"more than the {kinds.MAX_CHILDREN} children"):
        rendering.render(many(None), _kinds.parent({"n": kinds.MAX_CHILDREN}), [])


def test_kind_yaml_says_the_budget(tmp_path: Path) -> None:
    folder = _kinds.kind_folder(tmp_path, "placement:\n  maxChildren: 30\n")
    assert kinds.load_kind(folder).placement.max_children == 30


@pytest.mark.parametrize("bad", ["0", "-1", "'many'", "1.5"])
def test_a_budget_that_is_no_positive_whole_number_is_refused_at_its_line(tmp_path: Path, bad: str) -> None:
    folder = _kinds.kind_folder(tmp_path, f"placement:\n  maxChildren: {bad}\n")
    with pytest.raises(KindError) as caught:
        kinds.load_kind(folder)
    assert caught.value.line == 7
    assert caught.value.field == "placement.maxChildren"
