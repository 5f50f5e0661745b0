"""The roles ``stencil rbac --user-roles`` derives do what they say on a real API server: a user
bound to Kubernetes' own ``admin`` role in one namespace cannot create a DeployWebService there
until the kind's aggregated roles exist, and then can, with no RBAC written for the kind; a
user bound to ``view`` may then read it and still not create one."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from engine.core.model import errors, kinds
from engine.core.offline import rbac
from engine.runtime.cluster.kube import Kube, Resource
from tests.integration._engine import ROOT, eventually

ADMIN, VIEWER = "alice@example.com", "bob@example.com"


def parent(name: str, namespace: str) -> dict[str, Any]:
    return {
        "apiVersion": "operator.wujiuye.com/v1beta1",
        "kind": "DeployWebService",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"image": "nginx:1.27", "replicas": 1, "exposed_port": 80},
    }


def binding(namespace: str, user: str, cluster_role: str) -> dict[str, Any]:
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "RoleBinding",
        "metadata": {"name": f"{cluster_role}-{user.split('@')[0]}", "namespace": namespace},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": cluster_role},
        "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": user}],
    }


def refused(attempt: Any) -> bool:
    try:
        attempt()
    except errors.ApiError as error:
        if error.status == 403:
            return True
        raise
    return False


@pytest.fixture
def user_roles(kube: Kube) -> Iterator[list[dict[str, Any]]]:
    """The DeployWebService kind's user roles, as derived; deleted afterwards (cluster-scoped)."""
    loaded, _ = kinds.load_kinds(ROOT / "templates")
    kind = loaded["deploywebservice"]
    roles = rbac.user_roles([kind], rbac.offline_resources(ROOT / "crds", [kind]))
    documents = rbac.user_clusterroles(roles, f"test-{uuid.uuid4().hex[:6]}")
    yield documents
    res = kube.resource("rbac.authorization.k8s.io/v1", "ClusterRole")
    for document in documents:
        kube.delete(res, document["metadata"]["name"])


def test_admin_creates_once_the_roles_aggregate_and_view_only_reads(
    kube: Kube, namespace: str, dws: Resource, user_roles: list[dict[str, Any]]
) -> None:
    for user, role in ((ADMIN, "admin"), (VIEWER, "view")):
        kube.create(binding(namespace, user, role))
    admin, viewer = kube.impersonating(ADMIN), kube.impersonating(VIEWER)
    # The bindings themselves take effect at once; the kind is simply not in the built-in roles.
    assert refused(lambda: admin.create(parent("first", namespace)))
    assert refused(lambda: viewer.get(dws, "first", namespace))

    for document in user_roles:
        kube.create(document)

    # The controller-manager aggregates the new rules into admin and view.
    eventually(lambda: not refused(lambda: admin.create(parent("first", namespace))), what="admin allowed")
    assert kube.get(dws, "first", namespace) is not None
    eventually(lambda: not refused(lambda: viewer.get(dws, "first", namespace)), what="view reads")
    assert refused(lambda: viewer.create(parent("second", namespace)))
    status = [{"op": "add", "path": "/status", "value": {"observedGeneration": 1}}]
    assert refused(lambda: admin.patch_status(dws, "first", namespace, status))  # the engine's alone
