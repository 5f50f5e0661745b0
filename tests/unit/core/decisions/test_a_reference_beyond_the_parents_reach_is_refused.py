"""A reference's namespace expression may name another namespace only where the kind's placement
allows it, and never one off limits; a cluster-scoped kind only with ``clusterScoped``.  Otherwise
it is refused (``ReferenceRefused``, terminal) at the reference's line in kind.yaml: a tenant's CR
cannot read another namespace's object through a reference."""

from __future__ import annotations

import pytest

from engine.core.decisions import referencing
from engine.core.model.errors import PlacementError
from engine.core.model.kinds import Placement
from tests.unit import _references as refs


def _targets(placement: Placement, **spec: str) -> tuple[referencing.Target, ...]:
    kind = refs.kind(refs.reference(namespace="spec.where"), placement=placement)
    return referencing.targets(kind, refs.parent(configName="c", **spec), refs.builtin_scope)


def test_another_namespace_is_refused_unless_placement_allows_it() -> None:
    with pytest.raises(PlacementError) as caught:
        _targets(Placement(), where="other")
    assert caught.value.reason == referencing.REFERENCE_REFUSED
    where = (caught.value.file, caught.value.line, caught.value.field)
    assert where == ("kind.yaml", 9, "references[0].namespace")
    assert "'other' is not the parent's" in caught.value.message
    (target,) = _targets(Placement(namespaces=("other",)), where="other")
    assert target.where.namespace == "other"


def test_a_namespace_off_limits_is_refused_whatever_placement_allows() -> None:
    with pytest.raises(PlacementError, match="off limits"):
        _targets(Placement(namespaces=("*",)), where="kube-system")


def test_the_parents_own_namespace_needs_no_placement() -> None:
    (target,) = _targets(Placement(), where="shop")
    assert str(target) == "ConfigMap v1 shop/c"


def test_a_cluster_scoped_kind_needs_cluster_scoped_placement() -> None:
    kind = refs.kind(refs.reference(kind="Namespace", name="spec.configName"))
    with pytest.raises(PlacementError, match="cluster-scoped"):
        referencing.targets(kind, refs.parent(configName="team-a"), refs.builtin_scope)
    allowed = refs.kind(refs.reference(kind="Namespace"), placement=Placement(cluster_scoped=True))
    (target,) = referencing.targets(allowed, refs.parent(configName="team-a"), refs.builtin_scope)
    assert (target.where.namespace, target.where.name) == ("", "team-a")
