"""Telling writers apart that share Stencil's one field manager.

Every engine writes as the field manager ``stencil``, so ``managedFields`` cannot say which
of two engines wrote an object, and ``apiserver_request_total`` has no user label.  Priority
and fairness does count by the FlowSchema a request matched: an engine that runs as a
ServiceAccount of its own, alone in a FlowSchema that matches only its writes to the given
resources, has those writes counted on their own (``dispatched_requests``), refused or not.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from engine.core.model import errors
from engine.runtime.cluster.kube import Kube
from engine.testing import dispatched_requests, service_account_token, token_kubeconfig
from tests._deadlines import eventually

WRITES = ["create", "update", "patch", "delete", "deletecollection"]


def _flow_schema(
    name: str, account: str, namespace: str, resources: Sequence[tuple[str, str]]
) -> dict[str, Any]:
    subject = {"kind": "ServiceAccount", "serviceAccount": {"name": account, "namespace": namespace}}
    rules = [
        {
            "verbs": WRITES,
            "apiGroups": [group],
            "resources": [plural],
            "namespaces": ["*"],
            "clusterScope": True,
        }
        for group, plural in resources
    ]
    return {
        "apiVersion": "flowcontrol.apiserver.k8s.io/v1",
        "kind": "FlowSchema",
        "metadata": {"name": name},
        "spec": {
            "priorityLevelConfiguration": {"name": "workload-high"},
            "matchingPrecedence": 400,
            "distinguisherMethod": {"type": "ByUser"},
            "rules": [{"subjects": [subject], "resourceRules": rules}],
        },
    }


@contextlib.contextmanager
def counted_writers(
    admin: Kube,
    admin_kubeconfig: Path,
    namespace: str,
    accounts: Sequence[str],
    resources: Sequence[tuple[str, str]],
    directory: Path,
    *,
    cluster_role: str | None = "cluster-admin",
) -> Iterator[dict[str, Path]]:
    """For each account: a ServiceAccount in ``namespace`` bound to ``cluster_role`` (with
    ``None`` to nothing: the test grants what it means to), alone in a FlowSchema (named
    ``writes-<namespace>-<account>``) of its writes to ``resources`` (``(group, plural)``),
    in effect before this returns; yields a kubeconfig per account.  The cluster-scoped
    objects go at the end."""
    made: list[tuple[str, str]] = []
    kubeconfigs = {}
    try:
        for account in accounts:
            name = f"writes-{namespace}-{account}"
            admin.request(
                "POST", f"/api/v1/namespaces/{namespace}/serviceaccounts", {"metadata": {"name": account}}
            )
            if cluster_role is not None:
                binding = {
                    "metadata": {"name": name},
                    "roleRef": {
                        "apiGroup": "rbac.authorization.k8s.io",
                        "kind": "ClusterRole",
                        "name": cluster_role,
                    },
                    "subjects": [{"kind": "ServiceAccount", "name": account, "namespace": namespace}],
                }
                admin.request("POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", binding)
                made.append(("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", name))
            admin.apply(_flow_schema(name, account, namespace, resources))
            made.append(("/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas", name))
            eventually(functools.partial(_in_effect, admin, name), what=f"FlowSchema {name} in effect")
            token = service_account_token(admin, namespace, account)
            kubeconfigs[account] = token_kubeconfig(
                admin_kubeconfig, token, directory / f"{account}.kubeconfig"
            )
        yield kubeconfigs
    finally:
        for path, name in made:
            with contextlib.suppress(errors.NotFound):
                admin.request("DELETE", f"{path}/{name}")


def _in_effect(admin: Kube, name: str) -> bool:
    """The API server's flow control has taken the schema in: it has written its ``Dangling``
    condition, which it does only for a schema it holds."""
    schema = admin.request("GET", f"/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas/{name}")
    return any(c.get("type") == "Dangling" for c in (schema.get("status") or {}).get("conditions", []))


def writes_of(admin: Kube, namespace: str, account: str) -> int:
    """The account's writes to the resources its FlowSchema names, as the API server counts them."""
    return dispatched_requests(admin, f"writes-{namespace}-{account}")
