"""Children land in the parent's namespace; naming another is refused unless kind.yaml allows it."""

from __future__ import annotations

import pytest

from engine.core.model.errors import PlacementError
from engine.core.model.kinds import Placement
from engine.core.templating import rendering
from tests.unit import _kinds

IN_NAMESPACE = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  namespace: {{ spec.target }}\n"


def test_a_child_without_a_namespace_goes_into_the_parents() -> None:
    [child] = rendering.render(
        _kinds.kind(_kinds.configmap("  a: b\n")), _kinds.parent(namespace="team-a"), []
    )
    assert child["metadata"]["namespace"] == "team-a"


def test_naming_the_parents_own_namespace_is_allowed() -> None:
    [child] = rendering.render(_kinds.kind(IN_NAMESPACE), _kinds.parent({"target": "ns"}), [])
    assert child["metadata"]["namespace"] == "ns"


def test_another_namespace_is_refused_by_default() -> None:
    with pytest.raises(PlacementError, match="namespace 'kube-system' is not allowed") as caught:
        rendering.render(_kinds.kind(IN_NAMESPACE), _kinds.parent({"target": "kube-system"}), [])
    assert (caught.value.file, caught.value.field) == ("templates/web/t0.yaml", "metadata.namespace")


def test_a_namespace_listed_in_placement_is_allowed() -> None:
    kind = _kinds.kind(IN_NAMESPACE, placement=Placement(namespaces=("shared",)))
    [child] = rendering.render(kind, _kinds.parent({"target": "shared"}), [])
    assert child["metadata"]["namespace"] == "shared"
    with pytest.raises(PlacementError):
        rendering.render(kind, _kinds.parent({"target": "other"}), [])


def test_a_star_allows_any_namespace() -> None:
    kind = _kinds.kind(IN_NAMESPACE, placement=Placement(namespaces=("*",)))
    [child] = rendering.render(kind, _kinds.parent({"target": "anywhere"}), [])
    assert child["metadata"]["namespace"] == "anywhere"


def test_namespaced_children_of_a_cluster_scoped_parent_must_name_an_allowed_namespace() -> None:
    kind = _kinds.kind(_kinds.configmap("  a: b\n"), placement=Placement(namespaces=("jobs",)))
    with pytest.raises(PlacementError, match="must name their namespace"):
        rendering.render(kind, _kinds.parent(namespace=None), [])
    allowed = _kinds.kind(IN_NAMESPACE, placement=Placement(namespaces=("jobs",)))
    [child] = rendering.render(allowed, _kinds.parent({"target": "jobs"}, namespace=None), [])
    assert child["metadata"]["namespace"] == "jobs"
    with pytest.raises(PlacementError, match="not allowed"):
        rendering.render(allowed, _kinds.parent({"target": "default"}, namespace=None), [])
