"""A template marked ``adopt`` takes over an object of its child's name that nobody controls: the
owner reference is added and the rendered fields applied over another writer's, with an
``Adopted`` event; the same name in another namespace is not touched.  An object another
controller holds is never taken (``ChildConflict``), nor one labelled as another parent's child;
and a child one parent let go (``Orphan``) is adopted by the next that renders it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.runtime.cluster.kube import Kube, Resource
from engine.tools import manifests
from tests.integration._engine import condition_is, conditions, event_said, eventually, running_engine
from tests.integration._widgets import widget, write_kind

KIND_YAML = """\
templates:
  - {file: config.yaml, adopt: true, deletionPolicy: Orphan}
"""
CONFIG = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: "{{ spec.config }}"
data:
  owner: "{{ name }}"
"""


def _configmap(name: str, namespace: str, **metadata: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": namespace, **metadata},
        "data": {"owner": "someone", "theirs": "kept"},
    }


def test_only_what_no_one_holds_is_adopted(
    kube: Kube, namespace: str, other_namespace: str, widgets: Resource, tmp_path: Path
) -> None:
    configmaps = kube.resource("v1", "ConfigMap")
    kube.create(_configmap("loose", namespace))
    kube.create(_configmap("loose", other_namespace))
    holder = kube.create(_configmap("holder", namespace))
    controller = {"apiVersion": "v1", "kind": "ConfigMap", "name": "holder", "uid": holder["metadata"]["uid"]}
    kube.create(_configmap("held", namespace, ownerReferences=[{**controller, "controller": True}]))
    kube.create(_configmap("labelled", namespace, labels={"stencil.dev/parent-uid": "another-parent"}))
    templates = write_kind(tmp_path / "templates", {"config.yaml": CONFIG}, KIND_YAML)

    with running_engine(kube, templates, namespace):
        manifests.apply_all(kube, [widget("a", config="loose")], namespace)
        eventually(condition_is(kube, widgets, "a", namespace, "Ready", "True"), what="a Ready")
        adopted = kube.get(configmaps, "loose", namespace)
        assert (
            adopted["metadata"]["labels"]["stencil.dev/parent-uid"]
            == kube.get(widgets, "a", namespace)["metadata"]["uid"]
        )
        assert adopted["data"]["owner"] == "a" and adopted["data"]["theirs"] == "kept", adopted["data"]
        eventually(event_said(kube, namespace, "Adopted", "loose"), what="the Adopted event")
        assert kube.get(configmaps, "loose", other_namespace)["data"]["owner"] == "someone"

        for name, config in (("b", "held"), ("c", "labelled")):
            manifests.apply_all(kube, [widget(name, config=config)], namespace)
            refused = eventually(
                condition_is(kube, widgets, name, namespace, "ChildrenApplied", "False"),
                what=f"{name} refused",
            )
            assert conditions(refused)["ChildrenApplied"]["reason"] == "ChildConflict", refused["status"]
            assert kube.get(configmaps, config, namespace)["data"]["owner"] == "someone"

        # a lets it go (Orphan); d, rendering the same name, takes it over.
        kube.delete(widgets, "a", namespace)
        eventually(lambda: kube.get(widgets, "a", namespace) is None, what="a gone")
        manifests.apply_all(kube, [widget("d", config="loose")], namespace)
        eventually(condition_is(kube, widgets, "d", namespace, "Ready", "True"), what="d Ready")
        assert kube.get(configmaps, "loose", namespace)["data"]["owner"] == "d"
