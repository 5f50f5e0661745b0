"""A rendered child that placement refuses is reported at the template line of the field at fault,
or of the document when the field is missing, after any tags that moved the rendered lines."""

from __future__ import annotations

import pytest

from engine.core.model.errors import PlacementError, RenderError
from engine.core.templating import rendering
from tests.unit import _kinds

NAMESPACE_LINE = "  namespace: elsewhere"
TEMPLATE = (
    "{% for n in [1, 2] %}\n"
    "{% if n == 2 %}\n"
    "---\n"
    "apiVersion: v1\n"
    "kind: ConfigMap\n"
    "metadata:\n"
    "  name: cm-{{ n }}\n"
    f"{NAMESPACE_LINE}\n"
    "{% endif %}\n"
    "{% endfor %}\n"
)


def test_a_refused_namespace_is_reported_at_its_line() -> None:
    with pytest.raises(PlacementError) as caught:
        rendering.render(_kinds.kind(TEMPLATE), _kinds.parent(), [])
    assert (caught.value.file, caught.value.field) == ("templates/web/t0.yaml", "metadata.namespace")
    assert caught.value.line == TEMPLATE.splitlines().index(NAMESPACE_LINE) + 1


def test_a_missing_field_is_reported_at_the_document_it_is_missing_from() -> None:
    first = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"
    template = first + "---\n# no apiVersion\nkind: ConfigMap\nmetadata:\n  name: b\n"
    with pytest.raises(RenderError) as caught:
        rendering.render(_kinds.kind(template, collection=True), _kinds.parent(), [])
    assert caught.value.field == "apiVersion"
    assert caught.value.line == template.splitlines().index("kind: ConfigMap", first.count("\n")) + 1
