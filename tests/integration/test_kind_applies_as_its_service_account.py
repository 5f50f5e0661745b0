"""A kind that names a ServiceAccount applies its children as that account: the account's
RBAC, not the engine's, decides what the templates may change."""

from __future__ import annotations

from pathlib import Path

from engine.runtime.kube import Kube, Resource
from engine.tools import manifests
from tests.integration._engine import condition_is, conditions, eventually, running_engine
from tests.integration._widgets import write_kind

SERVICE_ACCOUNT = """\
serviceAccount:
  namespace: {namespace}
  name: widget-writer
"""

TEMPLATE = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ name }}-config
data:
  value: {{ spec.value }}
"""


def test_children_are_applied_with_the_service_accounts_rights(
    kube: Kube, namespace: str, widgets: Resource, tmp_path: Path
) -> None:
    templates = write_kind(
        tmp_path / "templates", {"configmap.yaml": TEMPLATE}, SERVICE_ACCOUNT.format(namespace=namespace)
    )
    configmaps = kube.resource("v1", "ConfigMap")
    manifests.apply_all(
        kube,
        [{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "widget-writer"}}],
        namespace,
    )

    with running_engine(kube, templates, namespace):
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
            timeout=90,
            what="Ready once the account may write ConfigMaps",
        )
        child = kube.request("GET", configmaps.path(namespace, "w-config"))
        assert {m["manager"] for m in child["metadata"]["managedFields"]} == {"stencil"}
