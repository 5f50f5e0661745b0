"""A template not marked ``collection: true`` renders at most one child: a second one is a
RenderError at the template line that wrote it, saying how to mark it; a collection renders any
number, one of them too."""

from __future__ import annotations

import pytest

from engine.core.model.errors import RenderError
from engine.core.templating import rendering
from tests.unit import _kinds

PER_ITEM = (
    "{% for n in spec.names %}\n---\n" + _kinds.configmap("  a: b\n", name="{{ n }}") + "{% endfor %}\n"
)


def test_a_second_child_of_a_template_of_one_is_an_error_at_its_line() -> None:
    with pytest.raises(RenderError) as caught:
        rendering.render(_kinds.kind(PER_ITEM), _kinds.parent({"names": ["a", "b"]}), [])
    assert caught.value.file == "templates/web/t0.yaml"
    assert caught.value.line == 3  # the loop's document starts at the template's third line
    assert "t0.yaml renders a second child, but it is not a collection" in caught.value.message
    assert "{file: t0.yaml, collection: true}" in caught.value.message


def test_one_child_of_a_template_of_one_is_fine() -> None:
    assert len(rendering.render(_kinds.kind(PER_ITEM), _kinds.parent({"names": ["a"]}), [])) == 1


def test_a_collection_renders_any_number() -> None:
    for names in ([], ["a"], ["a", "b", "c"]):
        children = rendering.render(
            _kinds.kind(PER_ITEM, collection=True), _kinds.parent({"names": names}), []
        )
        assert [c["metadata"]["name"] for c in children] == names
