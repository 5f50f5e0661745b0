"""Templates see the observed children: children.<Kind>[name] and child(kind, name)."""

from __future__ import annotations

import pytest

from engine.core.model.errors import RenderError
from engine.core.templating import rendering
from tests.unit import _kinds

SERVICE = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "w-service"},
    "spec": {"clusterIP": "10.0.0.7"},
}


def test_children_are_indexed_by_kind_and_name() -> None:
    template = _kinds.configmap("  ip: {{ children.Service[name ~ '-service'].spec.clusterIP }}\n")
    [configmap] = rendering.render(_kinds.kind(template), _kinds.parent(), [SERVICE])
    assert configmap["data"] == {"ip": "10.0.0.7"}


def test_child_returns_the_object_or_none() -> None:
    template = _kinds.configmap(
        "  ip: {{ child('Service', name ~ '-service').spec.clusterIP }}\n"
        "  missing: {{ child('Service', 'nope') is none }}\n"
    )
    [configmap] = rendering.render(_kinds.kind(template), _kinds.parent(), [SERVICE])
    assert configmap["data"] == {"ip": "10.0.0.7", "missing": True}


def test_a_child_not_observed_yet_is_undefined_and_can_be_tested() -> None:
    template = _kinds.configmap(
        "{% if children.Service is defined %}\n  ip: {{ children.Service['w-service'].spec.clusterIP }}\n"
        "{% else %}\n  ip: pending\n{% endif %}\n"
    )
    [configmap] = rendering.render(_kinds.kind(template), _kinds.parent(), [])
    assert configmap["data"] == {"ip": "pending"}


def test_a_missing_child_field_is_named_in_the_error() -> None:
    template = _kinds.configmap("  ip: {{ children.Service['w-service'].spec.loadBalancerIP }}\n")
    with pytest.raises(RenderError) as caught:
        rendering.render(_kinds.kind(template), _kinds.parent(), [SERVICE])
    assert caught.value.field == "children.Service['w-service'].spec.loadBalancerIP"


def test_reading_a_kind_not_observed_yet_says_none_is_observed() -> None:
    template = _kinds.configmap("  ip: {{ children.Service['w-service'].spec.clusterIP }}\n")
    with pytest.raises(RenderError) as caught:
        rendering.render(_kinds.kind(template), _kinds.parent(), [])
    assert caught.value.field == "children.Service"
    assert caught.value.message.startswith("no Service is observed (yet)")
