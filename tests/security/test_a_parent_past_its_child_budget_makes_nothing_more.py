"""One small parent cannot make thousands of children.  Tenant A's Widget of a kind whose
placement.maxChildren is 20 asks for 5,000 ConfigMaps: its TemplatesRendered is False with reason
TooManyChildren at the template's file, nothing more is created and nothing it had is pruned, while
tenant B's parent of the same kind is served.  Before, only a ResourceQuota bounded it."""

from __future__ import annotations

import time
from pathlib import Path

from engine.runtime.cluster.kube import Kube, Resource
from engine.tools import manifests
from tests.integration._engine import conditions, eventually, running_engine
from tests.integration._widgets import widget, write_kind

MANY = (
    "{% for i in range(spec.n) %}---\napiVersion: v1\nkind: ConfigMap\n"
    "metadata:\n  name: {{ name }}-{{ i }}\ndata:\n  i: '{{ i }}'\n{% endfor %}\n"
)
KIND_YAML = "templates:\n  - {file: many.yaml, collection: true}\nplacement:\n  maxChildren: 20\n"


def test_a_parent_asking_for_thousands_of_children_gets_a_condition_and_nothing_more(
    kube: Kube, namespace: str, tenant_b: str, widgets: Resource, tmp_path: Path
) -> None:
    templates = write_kind(tmp_path / "templates", {"many.yaml": MANY}, KIND_YAML)
    configmaps = kube.resource("v1", "ConfigMap")

    def children(ns: str, parent: str) -> dict[str, str]:
        found = (c["metadata"] for c in kube.list(configmaps, ns)[0])
        return {m["name"]: m["uid"] for m in found if m["name"].startswith(parent)}

    with running_engine(kube, templates, None):
        manifests.apply_all(kube, [widget("flood", n=10)], namespace)
        eventually(lambda: len(children(namespace, "flood-")) == 10, what="A's ten children")
        before = children(namespace, "flood-")

        manifests.apply_all(kube, [widget("flood", n=5000)], namespace)
        manifests.apply_all(kube, [widget("fair", n=3)], tenant_b)

        def refused() -> dict[str, object] | None:
            condition = conditions(kube.get(widgets, "flood", namespace)).get("TemplatesRendered")
            return condition if condition and condition["reason"] == "TooManyChildren" else None

        condition = eventually(refused, what="A's parent told it has too many children")
        assert condition["status"] == "False"
        assert str(templates / "widget" / "many.yaml") in str(condition["message"])
        assert "more than the 20 children a parent may have" in str(condition["message"])
        assert conditions(kube.get(widgets, "flood", namespace))["Ready"]["status"] == "False"
        eventually(lambda: len(children(tenant_b, "fair-")) == 3, what="B's parent served meanwhile")

        time.sleep(2.0)  # any create or prune the refused render would cause has had time to happen
        assert children(namespace, "flood-") == before
