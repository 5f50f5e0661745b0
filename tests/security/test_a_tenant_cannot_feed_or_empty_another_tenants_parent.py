"""Namespaces are a boundary for what the engine reads and deletes.  Tenant B, in its own
namespace, labels a ConfigMap with Stencil's labels and tenant A's parent uid (labels are
anyone's to write): the engine must neither read it into A's status (as a child or a related
object) nor delete it as a prune of A's, and A's conflict messages never carry a uid."""

from __future__ import annotations

import time
from pathlib import Path

from engine.core.model.children import placement
from engine.runtime.cluster.kube import Kube, Resource
from engine.tools import manifests
from tests.integration._engine import condition_is, eventually, running_engine
from tests.integration._widgets import VALUE_CONFIGMAP, widget, write_kind

KIND_YAML = """\
observe:
  - apiVersion: v1
    kind: ConfigMap
status:
  fields:
    seen: "related.ConfigMap | map(attribute='metadata.name') | sort | list"
    value: "children.data.data.value"
"""


def test_an_object_labelled_for_another_tenants_parent_is_neither_read_nor_deleted(
    kube: Kube, namespace: str, tenant_b: str, widgets: Resource, tmp_path: Path
) -> None:
    templates = write_kind(tmp_path / "templates", {"data.yaml": VALUE_CONFIGMAP}, KIND_YAML)
    configmaps = kube.resource("v1", "ConfigMap")
    with running_engine(kube, templates, None):
        manifests.apply_all(kube, [widget("a", value="one")], namespace)
        parent = eventually(condition_is(kube, widgets, "a", namespace, "Ready", "True"), what="A Ready")
        uid = parent["metadata"]["uid"]

        # Tenant B's plant: everything a child of A carries, but in B's namespace.
        labels = {
            placement.MANAGED_BY_LABEL: placement.MANAGED_BY_VALUE,
            placement.KIND_LABEL: "widget",
            placement.PARENT_NAME_LABEL: "a",
            placement.PARENT_NAMESPACE_LABEL: namespace,
            placement.PARENT_UID_LABEL: uid,
        }
        plant = {"apiVersion": "v1", "kind": "ConfigMap", "data": {"value": "from tenant b"}}
        kube.create({**plant, "metadata": {"name": "plant", "namespace": tenant_b, "labels": labels}})

        # A reconcile of A (its spec changes) with the plant cached.
        manifests.apply_all(kube, [widget("a", value="two")], namespace)

        def status_of_generation_two() -> dict[str, object] | None:
            obj = kube.get(widgets, "a", namespace) or {}
            status = obj.get("status") or {}
            return status if status.get("observedGeneration") == 2 and status.get("value") == "two" else None

        status = eventually(status_of_generation_two, what="A's status at its new spec")
        time.sleep(2.0)  # any prune the plant would cause has had time to happen
        assert status["seen"] == ["a-data"], status
        assert kube.get(configmaps, "plant", tenant_b) is not None, "the engine deleted tenant B's object"
        final = kube.get(widgets, "a", namespace) or {}
        assert "plant" not in str(final.get("status")), final.get("status")
