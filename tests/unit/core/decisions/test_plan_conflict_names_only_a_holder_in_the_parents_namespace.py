"""A conflict says who holds the child's name without telling a tenant anything about another
namespace: a Stencil parent holding it by its labels is named only when it is in the parent's
own namespace, a controller only by kind and name there; never by uid."""

from __future__ import annotations

from engine.core.decisions.plans import planning
from engine.core.model.identity import ChildId
from engine.core.model.kinds import Placement
from engine.core.templating import rendering
from tests.unit import _kinds
from tests.unit._children import as_observed

NAMESPACE = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: tenant001\n"
REACH = planning.Reach("ns", cluster_scoped=True)


def conflict(theirs_namespace: str, long_name: bool = False) -> str:
    kind = _kinds.kind(NAMESPACE, placement=Placement(cluster_scoped=True))
    name = "a" * 100 if long_name else "acme"
    [theirs] = rendering.render(
        kind, _kinds.parent(name=name, namespace=theirs_namespace, uid="uid-acme"), []
    )
    [ours] = rendering.render(kind, _kinds.parent(name="umbrella", uid="uid-umbrella"), [])
    [found] = planning.plan([ours], [as_observed(theirs)], "uid-umbrella", REACH).conflicts
    assert found.child == ChildId.of(ours)
    assert "uid-acme" not in found.why
    return str(found)


def test_a_holder_in_the_same_namespace_is_named_with_its_kind() -> None:
    assert conflict("ns") == (
        "Namespace tenant001 already exists and belongs by its labels to another Stencil parent: "
        "acme of kind web"
    )


def test_the_full_name_of_a_holder_too_long_for_a_label_is_given() -> None:
    assert conflict("ns", long_name=True).endswith(f"{'a' * 100} of kind web")


def test_a_holder_in_another_namespace_is_not_named() -> None:
    assert conflict("tenant-b") == (
        "Namespace tenant001 already exists and belongs by its labels to another Stencil parent, "
        "in another namespace"
    )
