"""Namespaces are a boundary: an object labelled (or owner-referenced) for a parent, but lying in
a namespace the parent's kind may not place children in, is not its child: not pruned, not read
into its status, not a dependency.  Tenant B can label objects in its own namespace with tenant
A's parent uid; that must change nothing for A."""

from __future__ import annotations

from engine.core.decisions.plans import planning
from engine.core.model.children import placement
from tests.unit._children import PARENT_UID, as_observed, configmap

OWN = planning.Reach("ns")  # a kind with no placement beyond the parent's namespace


def forged(namespace: str, *, owner: str | None = None) -> dict[str, object]:
    labels = {placement.PARENT_UID_LABEL: PARENT_UID}
    obj = as_observed(configmap("stolen", {"k": "secret"}, owner=owner, labels=labels))
    return {**obj, "metadata": {**obj["metadata"], "namespace": namespace}}


def test_a_labelled_object_in_another_namespace_is_never_pruned() -> None:
    assert planning.plan([], [forged("tenant-b")], PARENT_UID, OWN).prunes == ()


def test_an_owner_reference_in_another_namespace_counts_for_nothing() -> None:
    wide = planning.Reach("ns", ("*",))
    obj = forged("tenant-b", owner=PARENT_UID)
    assert planning.owned([obj], PARENT_UID, wide) == []
    assert planning.plan([], [obj], PARENT_UID, wide).prunes == ()


def test_a_labelled_object_in_another_namespace_is_not_the_parents() -> None:
    assert planning.owned([forged("tenant-b")], PARENT_UID, OWN) == []
    assert planning.within([forged("tenant-b")], OWN) == []


def test_a_namespace_the_placement_names_is_within_reach() -> None:
    reach = planning.Reach("ns", ("monitoring",))
    assert [
        o["metadata"]["namespace"] for o in planning.owned([forged("monitoring")], PARENT_UID, reach)
    ] == ["monitoring"]
    assert planning.owned([forged("tenant-b")], PARENT_UID, reach) == []


def test_a_cluster_scoped_object_is_within_reach_only_where_the_kind_allows_them() -> None:
    namespace = {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": "t1", "uid": "x", "labels": {placement.PARENT_UID_LABEL: PARENT_UID}},
    }
    assert planning.owned([namespace], PARENT_UID, OWN) == []
    assert planning.owned([namespace], PARENT_UID, planning.Reach("ns", cluster_scoped=True)) == [namespace]
