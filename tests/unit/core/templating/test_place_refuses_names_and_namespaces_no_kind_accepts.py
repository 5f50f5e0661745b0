"""A child's name or namespace that no kind accepts is refused at its template, before any request."""

from __future__ import annotations

import pytest

from engine.core.model.errors import RenderError
from engine.core.templating import rendering
from tests.unit import _kinds


def template(name: str, namespace: str | None = None) -> str:
    ns = "" if namespace is None else "\n  namespace: {{ spec.ns }}"
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{{{ spec.name }}}}{ns}\ndata: {{}}\n"


@pytest.mark.parametrize(
    "name",
    ["web\nkind: Secret", "../etc", "a/b", "..", "50%", " web", "x" * 254, "tab\there"],
)
def test_a_name_no_kind_accepts_is_refused_with_its_field(name: str) -> None:
    with pytest.raises(RenderError) as caught:
        rendering.render(_kinds.kind(template(name)), _kinds.parent({"name": name}), [])
    assert caught.value.field == "metadata.name"
    assert caught.value.file == "templates/web/t0.yaml"


@pytest.mark.parametrize("namespace", ["../kube-system", "*", "Kube-System", "ns\nx", "a" * 64, "a.b"])
def test_a_namespace_that_is_not_a_dns_label_is_refused(namespace: str) -> None:
    kind = _kinds.kind(template("cm", namespace))
    with pytest.raises(RenderError, match="not a namespace name") as caught:
        rendering.render(kind, _kinds.parent({"name": "cm", "ns": namespace}), [])
    assert caught.value.field == "metadata.namespace"


def test_an_empty_namespace_means_the_parents() -> None:
    [child] = rendering.render(_kinds.kind(template("cm", "")), _kinds.parent({"name": "cm", "ns": ""}), [])
    assert child["metadata"]["namespace"] == "ns"


@pytest.mark.parametrize("name", ["web", "system:auth-delegator", "a.b-c", "x" * 253])
def test_names_some_kind_accepts_pass(name: str) -> None:
    [child] = rendering.render(_kinds.kind(template(name)), _kinds.parent({"name": name}), [])
    assert child["metadata"]["name"] == name
