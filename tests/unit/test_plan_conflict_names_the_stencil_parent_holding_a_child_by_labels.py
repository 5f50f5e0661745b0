"""A cluster-scoped child that another Stencil parent holds by its labels is said to be that parent's.

Such a child carries no owner reference, so the conflict used to read "already
exists with no controller", as if nobody held it.
"""

from __future__ import annotations

from engine.core import planning, rendering
from engine.core.kinds import Placement
from tests.unit import _kinds
from tests.unit._children import as_observed

NAMESPACE = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: tenant001\n"


def test_the_conflict_names_the_kind_namespace_name_and_uid_of_the_parent_holding_it() -> None:
    kind = _kinds.kind(NAMESPACE, placement=Placement(cluster_scoped=True))
    [theirs] = rendering.render(kind, _kinds.parent(name="acme", namespace="tenants", uid="uid-acme"), [])
    [ours] = rendering.render(kind, _kinds.parent(name="umbrella", uid="uid-umbrella"), [])

    result = planning.plan([ours], [as_observed(theirs)], "uid-umbrella")

    assert result.conflicts == (
        (
            ("v1", "Namespace", "", "tenant001"),
            "Namespace tenant001 already exists and belongs by its labels to another Stencil parent: "
            "tenants/acme of kind web (uid uid-acme)",
        ),
    )


def test_the_full_name_of_a_parent_too_long_for_a_label_is_given() -> None:
    kind = _kinds.kind(NAMESPACE, placement=Placement(cluster_scoped=True))
    long_name = "a" * 100
    [theirs] = rendering.render(kind, _kinds.parent(name=long_name, uid="uid-long"), [])
    [ours] = rendering.render(kind, _kinds.parent(uid="uid-umbrella"), [])

    [(_, message)] = planning.plan([ours], [as_observed(theirs)], "uid-umbrella").conflicts

    assert f"ns/{long_name} of kind web (uid uid-long)" in message
