"""A patch template (``patch: true``) sets the fields it names on an object the kind does not own, as
the parent's own field manager: a label on a Namespace someone else made, whose other labels stay
theirs.  A field the template stops naming comes off; a field another parent holds with another
value is a conflict, never taken; a missing object is waited for, never created; an object outside
the parent's reach is refused; a record a tenant forged touches nothing; and when the parent is
deleted every field it set comes off, and nothing else of the object changes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from engine.core.model.children import patches
from engine.runtime.cluster.kube import Kube, Resource
from engine.tools import manifests
from tests.integration._engine import condition_is, conditions, eventually, running_engine
from tests.integration._widgets import VALUE_CONFIGMAP, widget, write_kind

KIND_YAML = """\
placement: {clusterScoped: true}
templates:
  - config.yaml
  - {file: team.yaml, patch: true}
  - {file: foreign.yaml, patch: true}
"""
TEAM = """\
apiVersion: v1
kind: Namespace
metadata:
  name: "{{ spec.target }}"
  labels:
    team: "{{ spec.value }}"
{% if spec.note is defined %}
  annotations:
    note: "{{ spec.note }}"
{% endif %}
"""
FOREIGN = """\
{% if spec.foreign is defined %}
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: "{{ spec.foreign }}"
  labels:
    team: "{{ spec.value }}"
{% endif %}
"""


def _merge(kube: Kube, res: Resource, name: str, namespace: str | None, body: dict[str, Any]) -> None:
    path = res.path(namespace, name)
    kube.request(
        "PATCH", path, body, query={"fieldManager": "admin"}, content_type="application/merge-patch+json"
    )


def _reason(kube: Kube, widgets: Resource, name: str, namespace: str) -> str:
    found = eventually(
        condition_is(kube, widgets, name, namespace, "TemplatesRendered", "False"), what=f"{name} refused"
    )
    return str(conditions(found)["TemplatesRendered"]["reason"])


def test_a_patch_sets_only_the_fields_it_names_and_takes_them_off(
    kube: Kube, namespace: str, other_namespace: str, widgets: Resource, tmp_path: Path
) -> None:
    namespaces, configmaps = kube.resource("v1", "Namespace"), kube.resource("v1", "ConfigMap")
    _merge(kube, namespaces, other_namespace, None, {"metadata": {"labels": {"owner": "someone"}}})
    kube.create(
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "settings", "namespace": other_namespace},
        }
    )
    files = {"config.yaml": VALUE_CONFIGMAP, "team.yaml": TEAM, "foreign.yaml": FOREIGN}
    templates = write_kind(tmp_path / "templates", files, KIND_YAML)

    def labels() -> dict[str, str]:
        return dict(kube.get(namespaces, other_namespace)["metadata"].get("labels") or {})

    def managers() -> set[str]:
        return {
            m["manager"] for m in kube.get(namespaces, other_namespace)["metadata"].get("managedFields") or ()
        }

    with running_engine(kube, templates, namespace):
        manifests.apply_all(kube, [widget("a", target=other_namespace, value="blue", note="hi")], namespace)
        eventually(condition_is(kube, widgets, "a", namespace, "Ready", "True"), what="a Ready")
        target = kube.get(namespaces, other_namespace)
        assert labels()["team"] == "blue" and labels()["owner"] == "someone", labels()
        assert target["metadata"]["annotations"]["note"] == "hi"
        assert not target["metadata"].get("ownerReferences"), target["metadata"]
        assert not any(key.startswith("stencil.dev/") for key in labels()), labels()
        assert f"stencil-patch/widget/{namespace}/a" in managers(), managers()

        # The template no longer names the annotation: it comes off, the label stays.
        manifests.apply_all(kube, [widget("a", target=other_namespace, value="blue")], namespace)
        eventually(
            lambda: (
                "note" not in (kube.get(namespaces, other_namespace)["metadata"].get("annotations") or {})
            ),
            what="the annotation taken off",
        )
        assert labels()["team"] == "blue"

        # Another parent naming the same label with another value is refused, not forced.
        manifests.apply_all(kube, [widget("b", target=other_namespace, value="green")], namespace)
        assert _reason(kube, widgets, "b", namespace) == "PatchConflict"
        assert labels()["team"] == "blue"

        # A missing object is waited for and never created.
        manifests.apply_all(kube, [widget("c", target="nowhere-to-be-found", value="x")], namespace)
        assert _reason(kube, widgets, "c", namespace) == "PatchTargetMissing"
        assert kube.get(namespaces, "nowhere-to-be-found") is None

        # An object in a namespace placement does not allow is refused, and left alone.
        manifests.apply_all(
            kube, [widget("d", target=namespace, value="x", foreign=other_namespace)], namespace
        )
        assert _reason(kube, widgets, "d", namespace) == "PlacementRefused"
        assert not kube.get(configmaps, "settings", other_namespace)["metadata"].get("labels")

        # A tenant's forged record names what a could never patch: it is dropped, nothing touched.
        forged = {
            f"v1/Namespace//{other_namespace}": "x",
            f"v1/ConfigMap/{other_namespace}/settings": "x",
            "v1/Namespace//kube-system": "x",
            f"v1/Secret/{namespace}/anything": "x",
        }
        body = {
            "metadata": {"annotations": {patches.ANNOTATION: json.dumps(forged)}},
            "spec": {"value": "blue2"},
        }
        kube.request("PATCH", widgets.path(namespace, "a"), body, content_type="application/merge-patch+json")
        eventually(
            lambda: (
                patches.record(kube.get(widgets, "a", namespace)).keys()
                == {f"v1/Namespace//{other_namespace}"}
            ),
            what="the forged entries dropped",
        )
        eventually(lambda: labels()["team"] == "blue2", what="the new value patched")
        assert not kube.get(configmaps, "settings", other_namespace)["metadata"].get("labels")
        assert "team" not in (kube.get(namespaces, "kube-system")["metadata"].get("labels") or {})

        # Deleted, a takes off every field it set; someone's label stays, and so does the Namespace.
        kube.delete(widgets, "b", namespace)
        kube.delete(widgets, "a", namespace)
        eventually(lambda: kube.get(widgets, "a", namespace) is None, what="a gone")
        assert labels() == {"owner": "someone", "kubernetes.io/metadata.name": other_namespace}, labels()
        assert f"stencil-patch/widget/{namespace}/a" not in managers(), managers()
