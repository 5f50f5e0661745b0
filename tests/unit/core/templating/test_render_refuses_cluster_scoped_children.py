"""A cluster-scoped child is refused unless kind.yaml allows it; scope comes from the caller or a table."""

from __future__ import annotations

import pytest

from engine.core.model.children import placement
from engine.core.model.errors import PlacementError
from engine.core.model.kinds import Placement
from engine.core.templating import rendering
from tests.unit import _kinds

NAMESPACE = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {{ name }}-sandbox\n"
WIDGET = "apiVersion: widgets.example.com/v1\nkind: Widget\nmetadata:\n  name: w\n"


def test_a_builtin_cluster_scoped_kind_is_refused_by_default() -> None:
    with pytest.raises(PlacementError, match="cluster-scoped objects are refused") as caught:
        rendering.render(_kinds.kind(NAMESPACE), _kinds.parent(), [])
    assert caught.value.file == "templates/web/t0.yaml"


def test_placement_can_allow_cluster_scoped_children_without_a_namespace_or_owner() -> None:
    kind = _kinds.kind(NAMESPACE, placement=Placement(cluster_scoped=True))
    [child] = rendering.render(kind, _kinds.parent(), [])
    assert "namespace" not in child["metadata"]
    # A namespaced parent cannot own a cluster-scoped object: it is tied to the parent by labels.
    assert "ownerReferences" not in child["metadata"]
    assert child["metadata"]["labels"][placement.PARENT_UID_LABEL] == "uid-1"


def test_a_cluster_scoped_child_cannot_name_a_namespace() -> None:
    kind = _kinds.kind(
        NAMESPACE.replace("-sandbox\n", "-sandbox\n  namespace: ns\n"),
        placement=Placement(cluster_scoped=True),
    )
    with pytest.raises(PlacementError, match="cannot have a namespace"):
        rendering.render(kind, _kinds.parent(), [])


def test_the_callers_scope_lookup_decides_for_custom_kinds() -> None:
    def cluster_widgets(api_version: str, kind: str) -> bool:
        return kind != "Widget"

    assert len(rendering.render(_kinds.kind(WIDGET), _kinds.parent(), [])) == 1
    with pytest.raises(PlacementError, match="cluster-scoped"):
        rendering.render(_kinds.kind(WIDGET), _kinds.parent(), [], is_namespaced=cluster_widgets)
