"""Roles, ClusterRoles and their bindings are refused unless kind.yaml allows RBAC."""

from __future__ import annotations

import pytest

from engine.core.model.errors import PlacementError
from engine.core.model.kinds import Placement
from engine.core.templating import rendering
from tests.unit import _kinds

ROLE = "apiVersion: rbac.authorization.k8s.io/v1\nkind: {kind}\nmetadata:\n  name: r\nrules: []\n"


@pytest.mark.parametrize("rbac_kind", ["Role", "RoleBinding"])
def test_namespaced_rbac_is_refused_by_default(rbac_kind: str) -> None:
    with pytest.raises(PlacementError, match="RBAC objects are refused"):
        rendering.render(_kinds.kind(ROLE.format(kind=rbac_kind)), _kinds.parent(), [])


@pytest.mark.parametrize("rbac_kind", ["ClusterRole", "ClusterRoleBinding"])
def test_cluster_rbac_is_refused_even_when_cluster_scoped_children_are_allowed(rbac_kind: str) -> None:
    kind = _kinds.kind(ROLE.format(kind=rbac_kind), placement=Placement(cluster_scoped=True))
    with pytest.raises(PlacementError, match="RBAC objects are refused"):
        rendering.render(kind, _kinds.parent(), [])


def test_rbac_is_rendered_when_allowed() -> None:
    kind = _kinds.kind(ROLE.format(kind="Role"), placement=Placement(rbac=True))
    [role] = rendering.render(kind, _kinds.parent(), [])
    assert role["kind"] == "Role" and role["metadata"]["namespace"] == "ns"
