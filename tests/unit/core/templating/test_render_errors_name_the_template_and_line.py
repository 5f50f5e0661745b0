"""Template syntax errors, YAML errors in the output and bad documents name the template and line."""

from __future__ import annotations

import pytest

from engine.core.model.errors import RenderError
from engine.core.templating import rendering
from tests.unit import _kinds


def test_a_syntax_error_names_the_template_line() -> None:
    template = _kinds.configmap("  a: b\n  c: {{ spec.x }\n")
    with pytest.raises(RenderError, match="template syntax error") as caught:
        rendering.render(_kinds.kind(template), _kinds.parent(), [])
    assert (caught.value.file, caught.value.line) == ("templates/web/t0.yaml", 7)


def test_invalid_yaml_output_quotes_the_rendered_line_without_the_values() -> None:
    template = _kinds.configmap("  a: b\n   c: {{ spec.secret }}\n")
    with pytest.raises(RenderError) as caught:
        rendering.render(_kinds.kind(template), _kinds.parent({"secret": "hunter2"}), [])
    message = str(caught.value)
    assert message.startswith("templates/web/t0.yaml:7: the rendered output is not valid YAML")
    assert "'c: {{…}}'" in message
    assert "hunter2" not in message


def test_a_disallowed_tag_is_an_error() -> None:
    template = _kinds.configmap("  a: !!python/object:os.system x\n")
    with pytest.raises(RenderError, match="could not determine a constructor"):
        rendering.render(_kinds.kind(template), _kinds.parent(), [])


@pytest.mark.parametrize(
    ("template", "field"),
    [
        ("kind: ConfigMap\nmetadata:\n  name: x\n", "apiVersion"),
        ("apiVersion: v1\nmetadata:\n  name: x\n", "kind"),
        ("apiVersion: v1\nkind: ConfigMap\nmetadata: {}\n", "metadata.name"),
        (
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  ownerReferences: []\n",
            "metadata.ownerReferences",
        ),
    ],
)
def test_a_document_missing_its_identity_is_an_error(template: str, field: str) -> None:
    with pytest.raises(RenderError) as caught:
        rendering.render(_kinds.kind(template), _kinds.parent(), [])
    assert (caught.value.file, caught.value.field) == ("templates/web/t0.yaml", field)


def test_a_filter_block_that_mangles_values_is_an_error() -> None:
    template = _kinds.configmap("{% filter upper %}\n  a: {{ spec.x }}\n{% endfilter %}\n")
    with pytest.raises(RenderError, match="altered after it was printed"):
        rendering.render(_kinds.kind(template), _kinds.parent({"x": "v"}), [])


def test_printing_a_function_is_an_error() -> None:
    with pytest.raises(RenderError, match="cannot be placed in a manifest") as caught:
        rendering.render(_kinds.kind(_kinds.configmap("  a: {{ child }}\n")), _kinds.parent(), [])
    assert caught.value.line == 6


def test_a_parent_of_another_kind_is_refused() -> None:
    parent = {**_kinds.parent(), "kind": "Other"}
    with pytest.raises(RenderError, match="serves Web"):
        rendering.render(_kinds.kind(_kinds.configmap("  a: b\n")), parent, [])
