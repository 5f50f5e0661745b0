"""``{{ m() }}`` puts out a macro's text as one value, as every ``{{ }}`` does: printed where a
document goes, it cannot be one, and the error, at the line of the ``{{ }}``, says that a
``{% call %}`` block puts the macro's text out as the template's own YAML."""

from __future__ import annotations

import pytest

from engine.core.model.errors import RenderError
from engine.core.templating import rendering
from tests.unit import _kinds

TEMPLATE = """\
{% macro configmap(n) %}
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ n }}
{% endmacro %}
{{ configmap('a') }}
---
{{ configmap('b') }}
"""


def test_a_macros_text_printed_as_a_document_is_an_error_that_names_the_call_block() -> None:
    with pytest.raises(RenderError) as caught:
        rendering.render(_kinds.kind(TEMPLATE, collection=True), _kinds.parent(), [])

    assert (caught.value.file, caught.value.line) == ("templates/web/t0.yaml", 7)
    assert "printed with {{ }} is one value" in caught.value.message
    assert "{% call name(...) %}{% endcall %}" in caught.value.message
