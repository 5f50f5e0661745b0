"""``render_located`` gives each child with the template line of every field, for checkers to report at.

A field is placed at the line of its key in the template, through tags and
loops; a field the template did not write is placed at the nearest one above it.
"""

from __future__ import annotations

from engine.core.model.children import placement
from engine.core.templating import rendering
from tests.unit import _kinds

TEMPLATE = """\
{% for tier in spec.tiers %}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ name }}-{{ tier }}
{% if spec.labelled
      and tier == 'web' %}
  labels:
    tier: {{ tier }}
{% endif %}
data:
  {{ tier }}-replicas: "{{ spec.replicas }}"
  settings: {{ spec.settings }}
{% endfor %}
"""


def line_of(text: str) -> int:
    """The template line that holds ``text``."""
    return next(number for number, line in enumerate(TEMPLATE.splitlines(), 1) if text in line)


def located() -> list[rendering.Located]:
    spec = {"tiers": ["web", "db"], "labelled": True, "replicas": 2, "settings": {"a": {"b": 1}}}
    return rendering.render_located(_kinds.kind(TEMPLATE, collection=True), _kinds.parent(spec), [])


def test_each_child_comes_with_its_template_and_the_child_render_gives() -> None:
    children = located()
    spec = {"tiers": ["web", "db"], "labelled": True, "replicas": 2, "settings": {"a": {"b": 1}}}
    assert [c.child for c in children] == rendering.render(
        _kinds.kind(TEMPLATE, collection=True), _kinds.parent(spec), []
    )
    assert {c.template.name for c in children} == {"t0.yaml"}


def test_fields_are_placed_at_the_lines_of_their_keys() -> None:
    web, db = located()
    assert web.where(("data", "web-replicas")) == ("templates/web/t0.yaml", line_of("-replicas:"))
    assert db.line_of(("data", "db-replicas")) == line_of("-replicas:")
    assert web.line_of(("metadata", "labels", "tier")) == line_of("tier: {{ tier }}")
    assert db.line_of(("metadata", "name")) == line_of("name:")
    assert web.line_of(("kind",)) == line_of("kind: ConfigMap")


def test_fields_the_template_did_not_write_are_placed_at_the_nearest_one_above() -> None:
    web, db = located()
    # The engine's own labels: under the template's labels in one, under metadata in the other.
    assert web.line_of(("metadata", "labels", placement.KIND_LABEL)) == line_of("labels:")
    assert db.line_of(("metadata", "labels", placement.KIND_LABEL)) == line_of("metadata:")
    # Inside a value that came whole from the CR.
    assert web.line_of(("data", "settings", "a", "b")) == line_of("settings:")
    assert web.line_of(()) == line_of("apiVersion:")
