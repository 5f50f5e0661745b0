"""A kind that names a ServiceAccount applies its children as that account: the account's
RBAC, not the engine's, decides what the templates may change.

The engine and the account write as the one field manager ``stencil``, so ``managedFields``
cannot say which of them wrote; the engine runs as a ServiceAccount of its own, and the API
server counts each account's writes to ConfigMaps apart (``_writers``).
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

from engine.runtime.cluster.kube import Kube, Resource
from engine.testing import write_requests
from engine.tools import manifests
from tests.integration._engine import condition_is, conditions, eventually, running_engine
from tests.integration._widgets import configmap, write_kind
from tests.integration._writers import counted_writers, writes_of

SERVICE_ACCOUNT = """\
serviceAccount:
  namespace: {namespace}
  name: widget-writer
"""

TEMPLATE = configmap("  value: {{ spec.value }}\n", name="{{ name }}-config")


def test_children_are_applied_with_the_service_accounts_rights(
    kube: Kube, namespace: str, widgets: Resource, local_cluster: Any, tmp_path: Path, connect: Any
) -> None:
    templates = write_kind(
        tmp_path / "templates", {"configmap.yaml": TEMPLATE}, SERVICE_ACCOUNT.format(namespace=namespace)
    )
    configmaps = kube.resource("v1", "ConfigMap")
    counted = [("", "configmaps")]

    def writes(account: str) -> int:
        return writes_of(kube, namespace, account)

    with contextlib.ExitStack() as stack:
        # The engine may do anything; the kind's account is given nothing until the test grants it.
        engine_config = stack.enter_context(
            counted_writers(kube, local_cluster.kubeconfig, namespace, ["engine"], counted, tmp_path)
        )["engine"]
        stack.enter_context(
            counted_writers(
                kube,
                local_cluster.kubeconfig,
                namespace,
                ["widget-writer"],
                counted,
                tmp_path,
                cluster_role=None,
            )
        )
        applies_before = write_requests(kube, refused=False)["APPLY configmaps"]
        stack.enter_context(running_engine(connect(engine_config), templates, namespace))
        manifests.apply_all(
            kube,
            [
                {
                    "apiVersion": "tests.stencil.dev/v1",
                    "kind": "Widget",
                    "metadata": {"name": "w"},
                    "spec": {"value": "v"},
                }
            ],
            namespace,
        )

        # The account may not write ConfigMaps yet: refused, and the parent says so.
        refused = eventually(
            condition_is(kube, widgets, "w", namespace, "ChildrenApplied", "False"),
            what="ChildrenApplied=False while the account lacks rights",
        )
        message = conditions(refused)["ChildrenApplied"]["message"]
        assert "forbidden" in message and "system:serviceaccount:" + namespace + ":widget-writer" in message
        assert kube.get(configmaps, "w-config", namespace) is None
        # Flow control counts a request before it is authorized: the refused applies are the account's.
        refused_writes = writes("widget-writer")
        assert refused_writes >= 1

        # Granted in this namespace only: the child appears, applied by the engine's field manager.
        manifests.apply_all(
            kube,
            [
                {
                    "apiVersion": "rbac.authorization.k8s.io/v1",
                    "kind": "Role",
                    "metadata": {"name": "widget-writer"},
                    "rules": [
                        {
                            "apiGroups": [""],
                            "resources": ["configmaps"],
                            "verbs": ["get", "create", "patch", "delete"],
                        }
                    ],
                },
                {
                    "apiVersion": "rbac.authorization.k8s.io/v1",
                    "kind": "RoleBinding",
                    "metadata": {"name": "widget-writer"},
                    "roleRef": {
                        "apiGroup": "rbac.authorization.k8s.io",
                        "kind": "Role",
                        "name": "widget-writer",
                    },
                    "subjects": [{"kind": "ServiceAccount", "name": "widget-writer", "namespace": namespace}],
                },
            ],
            namespace,
        )
        eventually(
            condition_is(kube, widgets, "w", namespace, "Ready", "True"),
            what="Ready once the account may write ConfigMaps",
        )
        child = kube.request("GET", configmaps.path(namespace, "w-config"))
        assert {m["manager"] for m in child["metadata"]["managedFields"]} == {"stencil"}
        # The API server's own count, by account: one ConfigMap was applied, by the kind's account,
        # and the engine's own identity wrote none.
        assert writes("engine") == 0
        assert writes("widget-writer") > refused_writes
        assert write_requests(kube, refused=False)["APPLY configmaps"] - applies_before == 1
