"""Each child lives as its template says, against the real API server and garbage collector:

- ``createOnly``: created once, never updated when the parent changes;
- ``applyOnce``: a field another writer changes keeps its value through the engine's later
  applies, and is neither put back nor said to be contested;
- no longer rendered, a ``Retain`` child stays the parent's, an ``Orphan`` child stays with
  nothing of Stencil's on it, and a ``Delete`` child goes;
- the parent deleted, the ``Retain``, ``createOnly`` and ``applyOnce`` children go with it
  (owner references), while an ``Orphan`` child, let go under the parent's finalizer, stays.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from engine.core.model.children import placement
from engine.runtime.cluster.kube import Kube, Resource
from engine.tools import manifests
from tests.integration._engine import condition_is, conditions, eventually, running_engine
from tests.integration._widgets import widget, write_kind

KIND_YAML = """\
templates:
  - {file: orphan.yaml, deletionPolicy: Orphan}
  - {file: retained.yaml, deletionPolicy: Retain}
  - {file: pruned.yaml}
  - {file: once.yaml, createOnly: true}
  - {file: scaled.yaml, applyOnce: [data.replicas]}
"""


def _configmap(suffix: str, data: str, when: str | None = None) -> str:
    text = f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: '{{{{ name }}}}-{suffix}'\ndata:\n{data}"
    return f"{{% if spec.{when} | default(false) %}}\n{text}{{% endif %}}\n" if when else text


FILES = {
    "orphan.yaml": _configmap("orphan", "  image: '{{ spec.image }}'\n", when="orphan"),
    "retained.yaml": _configmap("retained", "  image: '{{ spec.image }}'\n", when="retained"),
    "pruned.yaml": _configmap("pruned", "  image: '{{ spec.image }}'\n", when="pruned"),
    "once.yaml": _configmap("once", "  image: '{{ spec.image }}'\n"),
    "scaled.yaml": _configmap("scaled", "  replicas: '2'\n  image: '{{ spec.image }}'\n"),
}
ALL = {"orphan": True, "retained": True, "pruned": True}


def _data(kube: Kube, name: str, namespace: str) -> dict[str, Any] | None:
    found = kube.get(kube.resource("v1", "ConfigMap"), name, namespace)
    return None if found is None else found.get("data")


def test_each_child_lives_as_its_template_says(
    kube: Kube, namespace: str, widgets: Resource, tmp_path: Path
) -> None:
    configmaps = kube.resource("v1", "ConfigMap")
    templates = write_kind(tmp_path / "templates", FILES, KIND_YAML)
    with running_engine(kube, templates, namespace):
        manifests.apply_all(kube, [widget("a", image="one", **ALL)], namespace)
        eventually(condition_is(kube, widgets, "a", namespace, "Ready", "True"), what="a Ready")
        orphan = kube.get(configmaps, "a-orphan", namespace)
        assert orphan is not None and "ownerReferences" not in orphan["metadata"], orphan
        parent = kube.get(widgets, "a", namespace)
        assert "stencil.dev/cleanup" in parent["metadata"]["finalizers"], "an orphan is held by a finalizer"

        # Another writer scales: the engine's next applies keep its value.
        kube.request(
            "PATCH",
            configmaps.path(namespace, "a-scaled"),
            {"data": {"replicas": "7"}},
            query={"fieldManager": "autoscaler"},
            content_type="application/merge-patch+json",
        )
        manifests.apply_all(kube, [widget("a", image="two", **ALL)], namespace)
        scaled = lambda: (_data(kube, "a-scaled", namespace) or {}).get("image") == "two"  # noqa: E731
        eventually(scaled, what="the update")
        assert _data(kube, "a-scaled", namespace) == {"replicas": "7", "image": "two"}
        assert _data(kube, "a-once", namespace) == {"image": "one"}, "a createOnly child was updated"
        time.sleep(2)  # a field put back, or said contested, would show by now
        assert _data(kube, "a-scaled", namespace) == {"replicas": "7", "image": "two"}
        said = str(conditions(kube.get(widgets, "a", namespace)))
        assert "ontested" not in said and "replicas" not in said, said

        # No longer rendered: kept, let go, or deleted.
        manifests.apply_all(kube, [widget("a", image="two")], namespace)
        eventually(lambda: kube.get(configmaps, "a-pruned", namespace) is None, what="the child pruned")
        let_go = eventually(
            lambda: _released(kube.get(configmaps, "a-orphan", namespace)), what="the orphan let go"
        )
        assert let_go["data"] == {"image": "two"}
        retained = kube.get(configmaps, "a-retained", namespace)
        assert retained is not None and retained["metadata"]["ownerReferences"][0]["name"] == "a"

        # A second parent, deleted while its orphan is rendered.
        manifests.apply_all(kube, [widget("b", image="one", orphan=True)], namespace)
        eventually(condition_is(kube, widgets, "b", namespace, "Ready", "True"), what="b Ready")
        for name in ("a", "b"):
            kube.delete(widgets, name, namespace)
        eventually(lambda: _released(kube.get(configmaps, "b-orphan", namespace)), what="b's orphan let go")
        for gone in ("a-retained", "a-once", "a-scaled", "b-once", "b-scaled"):
            eventually(lambda gone=gone: kube.get(configmaps, gone, namespace) is None, what=f"{gone} gone")
        assert kube.get(configmaps, "a-orphan", namespace) is not None
        assert kube.get(configmaps, "b-orphan", namespace) is not None


def _released(obj: dict[str, Any] | None) -> dict[str, Any] | None:
    """``obj`` if nothing of Stencil's ties it to a parent any longer."""
    if obj is None:
        return None
    meta = obj["metadata"]
    tied = set(meta.get("labels") or {}) & {placement.PARENT_UID_LABEL, placement.KIND_LABEL}
    stencils = [k for k in meta.get("annotations") or {} if k.startswith("stencil.dev/")]
    return None if tied or stencils or meta.get("ownerReferences") else obj
