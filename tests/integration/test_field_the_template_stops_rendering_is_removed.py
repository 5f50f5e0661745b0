"""A field a template stops rendering is removed from the child, the first time as every time.

A child's first write is a create-only server-side apply, so its fields belong to Stencil's
``Apply`` entry alone; had it been created with a POST, they would also belong to an ``Update``
entry of the same manager, and the field the next apply leaves out would stay.
"""

from __future__ import annotations

from pathlib import Path

from engine.runtime.cluster.kube import Kube, Resource
from engine.tools import manifests
from tests.integration._engine import eventually, running_engine
from tests.integration._widgets import widget, write_kind

TEMPLATE = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ name }}-data
data:
  kept: "yes"
{% if spec.extra is defined %}
  extra: "{{ spec.extra }}"
{% endif %}
"""


def test_a_field_dropped_after_creation_is_removed(
    kube: Kube, namespace: str, widgets: Resource, tmp_path: Path
) -> None:
    configmaps = kube.resource("v1", "ConfigMap")
    templates = write_kind(tmp_path / "templates", {"configmap.yaml": TEMPLATE})

    def data() -> dict[str, str] | None:
        found = kube.get(configmaps, "w-data", namespace)
        return found.get("data") if found else None

    with running_engine(kube, templates, namespace):
        manifests.apply_all(kube, [widget("w", extra="here")], namespace)
        eventually(lambda: data() == {"kept": "yes", "extra": "here"}, what="the child as first rendered")
        applied = kube.get(configmaps, "w-data", namespace)
        assert applied is not None
        managers = [(m["manager"], m["operation"]) for m in applied["metadata"]["managedFields"]]
        assert managers == [("stencil", "Apply")]

        kube.request(
            "PATCH",
            widgets.path(namespace, "w"),
            {"spec": {"extra": None}},
            content_type="application/merge-patch+json",
        )

        eventually(lambda: data() == {"kept": "yes"}, what="the dropped field removed")
