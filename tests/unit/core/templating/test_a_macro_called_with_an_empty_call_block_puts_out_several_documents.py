"""A macro's text is the template's own structure when a ``{% call %}`` block puts it out: its
literal ``---`` separates documents, and a macro that never calls ``caller()`` is called so with
nothing in the block.  The values in it are still values: a CR's ``---`` is data."""

from __future__ import annotations

import pytest

from engine.core.model.errors import RenderError
from engine.core.templating import rendering
from tests.unit import _kinds

TEMPLATE = """\
{% macro configmaps(names) %}
{% for n in names %}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ n }}
data:
  note: {{ spec.note }}
{% endfor %}
{% endmacro %}
{% call configmaps(spec.names) %}{% endcall %}
"""


def test_an_empty_call_block_puts_out_every_document_of_the_macro() -> None:
    spec = {"names": ["a", "b"], "note": "x\n---\nkind: Secret"}

    children = rendering.render(_kinds.kind(TEMPLATE, collection=True), _kinds.parent(spec), [])

    assert [(c["kind"], c["metadata"]["name"], c["data"]["note"]) for c in children] == [
        ("ConfigMap", "a", spec["note"]),
        ("ConfigMap", "b", spec["note"]),
    ]


def test_text_in_the_call_block_of_a_macro_that_never_calls_caller_is_an_error_at_its_line() -> None:
    template = TEMPLATE.replace("{% endcall %}", "lost{% endcall %}")

    with pytest.raises(RenderError) as caught:
        rendering.render(
            _kinds.kind(template, collection=True), _kinds.parent({"names": ["a"], "note": "n"}), []
        )

    assert caught.value.line == 12
    assert "macro 'configmaps' never calls caller()" in caught.value.message
