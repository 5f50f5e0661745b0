"""A template renders zero, one or (a collection) several documents; empty documents are dropped."""

from __future__ import annotations

from engine.core.templating import rendering
from tests.unit import _kinds

OPTIONAL = "{% if spec.enabled %}\n" + _kinds.configmap("  a: b\n") + "{% endif %}\n"
PER_ITEM = (
    "{% for n in spec.names %}\n---\n" + _kinds.configmap("  a: b\n", name="{{ n }}") + "{% endfor %}\n"
)


def test_a_template_that_renders_nothing_makes_no_children() -> None:
    assert rendering.render(_kinds.kind(OPTIONAL), _kinds.parent({"enabled": False}), []) == []
    assert len(rendering.render(_kinds.kind(OPTIONAL), _kinds.parent({"enabled": True}), [])) == 1


def test_a_template_renders_one_child_per_document_in_order() -> None:
    children = rendering.render(
        _kinds.kind(PER_ITEM, collection=True), _kinds.parent({"names": ["a", "b", "c"]}), []
    )
    assert [c["metadata"]["name"] for c in children] == ["a", "b", "c"]


def test_empty_documents_between_separators_are_dropped() -> None:
    template = "---\n---\n" + _kinds.configmap("  a: b\n") + "---\n# only a comment\n---\n"
    assert len(rendering.render(_kinds.kind(template), _kinds.parent(), [])) == 1


def test_templates_render_in_order() -> None:
    kind = _kinds.kind(
        _kinds.configmap("  a: b\n", name="first"), _kinds.configmap("  a: b\n", name="second")
    )
    assert [c["metadata"]["name"] for c in rendering.render(kind, _kinds.parent(), [])] == ["first", "second"]
