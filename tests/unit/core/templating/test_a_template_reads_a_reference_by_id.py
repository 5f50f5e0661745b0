"""A template reads what a reference found as ``references.<id>``: a value from a referenced
ConfigMap reaches the child (as a value, never as structure), and an optional reference that is
missing reads as none; offline, where nothing is read, a template reading one is told why."""

from __future__ import annotations

import pytest

from engine.core.model.errors import RenderError
from engine.core.templating import rendering
from tests.unit import _references as refs

TEMPLATE = (
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: '{{ name }}-echo'\n"
    "data:\n  ECHO_VALUE: '{{ references.config.data.ECHO if references.config is not none"
    ' else "none" }}\'\n'
)


def test_a_template_reads_the_referenced_object() -> None:
    kind = refs.kind(refs.reference(), templates=(TEMPLATE,))
    config = refs.config_map("echo-config")
    config["data"]["ECHO"] = "hello\n---\nkind: Secret"
    (child,) = rendering.render(kind, refs.parent(), [], references={"config": config})
    assert child["data"] == {"ECHO_VALUE": "hello\n---\nkind: Secret"}


def test_a_missing_optional_reference_reads_as_none() -> None:
    kind = refs.kind(refs.reference(optional=True), templates=(TEMPLATE,))
    (child,) = rendering.render(kind, refs.parent(), [], references={"config": None})
    assert child["data"] == {"ECHO_VALUE": "none"}


def test_a_reference_not_read_is_said_at_its_line() -> None:
    unguarded = TEMPLATE.split("\ndata:")[0] + "\ndata:\n  ECHO_VALUE: '{{ references.config.data.ECHO }}'\n"
    kind = refs.kind(refs.reference(), templates=(unguarded,))
    with pytest.raises(RenderError) as caught:
        rendering.render(kind, refs.parent(), [])  # no reference was read
    assert (caught.value.line, caught.value.field) == (6, "references.config")
    assert "no reference of kind.yaml has this id" in caught.value.message
