"""A decorator kind makes existing objects of a kind it does not serve its parents: each ConfigMap its
selectors select, in the namespaces its placement names, gets a child owned by it and a label set as
the decorator's own field manager, beside the labels others keep.  One outside those namespaces is
never touched, whatever its labels say; one that stops matching has its child pruned and the label
taken off.  Nothing is ever written to what it selects but that label (no status, no finalizer, no
record), and once set, nothing more."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from engine.runtime.cluster.kube import Kube
from tests.integration._engine import eventually, running_engine

KIND_YAML = """\
apiVersion: stencil.dev/v1alpha1
kind: StencilKind
parent:
  apiVersion: v1
  kind: ConfigMap
  selector: {matchLabels: {decorate: "yes"}}
  annotationSelector: {matchExpressions: [{key: copy-to, operator: Exists}]}
placement:
  namespaces: [{namespace}]
templates:
  - mirror.yaml
  - {file: label.yaml, patch: true}
"""
COPY = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: "{{ metadata.annotations['copy-to'] }}"
data:
  from: "{{ name }}"
"""
LABEL = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: "{{ name }}"
  labels:
    decorated: "true"
"""


def _configmap(name: str, namespace: str, labels: dict[str, str], copy_to: str) -> dict[str, Any]:
    meta = {"name": name, "namespace": namespace, "labels": labels, "annotations": {"copy-to": copy_to}}
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": {"theirs": "kept"}}


def test_a_decorator_attaches_only_to_what_it_selects_where_it_may(
    kube: Kube, namespace: str, other_namespace: str, tmp_path: Path
) -> None:
    configmaps = kube.resource("v1", "ConfigMap")
    folder = tmp_path / "templates" / "copier"
    folder.mkdir(parents=True)
    (folder / "kind.yaml").write_text(KIND_YAML.replace("{namespace}", namespace))
    (folder / "mirror.yaml").write_text(COPY)
    (folder / "label.yaml").write_text(LABEL)
    source = kube.create(_configmap("source", namespace, {"decorate": "yes", "team": "a"}, "copied"))
    kube.create(_configmap("source", other_namespace, {"decorate": "yes"}, "copied"))
    kube.create(_configmap("unlabelled", namespace, {}, "never"))

    with running_engine(kube, tmp_path / "templates", None):
        copied = eventually(lambda: kube.get(configmaps, "copied", namespace), what="the child of source")
        assert copied["data"] == {"from": "source"}
        (owner,) = copied["metadata"]["ownerReferences"]
        assert owner["uid"] == source["metadata"]["uid"] and owner["kind"] == "ConfigMap", owner
        decorated = eventually(
            lambda: (
                (found := kube.get(configmaps, "source", namespace))
                and found["metadata"]["labels"].get("decorated") == "true"
                and found
            ),
            what="the label on source",
        )
        assert decorated["metadata"]["labels"]["team"] == "a" and decorated["data"] == {"theirs": "kept"}
        assert not decorated["metadata"].get("finalizers") and not decorated["metadata"].get(
            "annotations", {}
        ).get("stencil.dev/patches"), decorated["metadata"]
        assert {m["manager"] for m in decorated["metadata"]["managedFields"]} >= {
            "stencil-patch/copier/" + namespace + "/source"
        }
        # Decorated, it is written no more: what the decorator holds is read from the cache.
        time.sleep(2)
        assert (
            kube.get(configmaps, "source", namespace)["metadata"]["resourceVersion"]
            == decorated["metadata"]["resourceVersion"]
        )
        # Outside the namespaces its placement names, and without the annotation: never touched.
        assert kube.get(configmaps, "copied", other_namespace) is None
        assert "decorated" not in kube.get(configmaps, "source", other_namespace)["metadata"]["labels"]
        assert kube.get(configmaps, "never", namespace) is None

        # No longer selected (the annotation goes): the child is pruned, the label taken off.
        path = configmaps.path(namespace, "source")
        body = {"metadata": {"annotations": {"copy-to": None}}}
        kube.request(
            "PATCH", path, body, content_type="application/merge-patch+json", query={"fieldManager": "admin"}
        )
        eventually(lambda: kube.get(configmaps, "copied", namespace) is None, what="the child pruned")
        eventually(
            lambda: "decorated" not in kube.get(configmaps, "source", namespace)["metadata"]["labels"],
            what="the label taken off",
        )
        assert kube.get(configmaps, "source", namespace)["metadata"]["labels"]["team"] == "a"
