"""Two rendered children with the same group, kind, namespace and name are an error."""

from __future__ import annotations

import pytest

from engine.core.model.errors import RenderError
from engine.core.templating import rendering
from tests.unit import _kinds


def test_the_same_child_from_two_templates_is_an_error() -> None:
    template = _kinds.configmap("  a: b\n")
    with pytest.raises(RenderError, match="ConfigMap ns/cm is rendered twice") as caught:
        rendering.render(_kinds.kind(template, template), _kinds.parent(), [])
    assert caught.value.file == "templates/web/t1.yaml"


def test_the_same_child_twice_in_one_template_is_an_error() -> None:
    twice = "{% for i in [1, 2] %}\n---\n" + _kinds.configmap("  a: b\n") + "{% endfor %}\n"
    with pytest.raises(RenderError, match="rendered twice"):
        rendering.render(_kinds.kind(twice, collection=True), _kinds.parent(), [])


def test_same_name_in_another_kind_is_fine() -> None:
    secret = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: cm\n"
    assert len(rendering.render(_kinds.kind(_kinds.configmap("  a: b\n"), secret), _kinds.parent(), [])) == 2
