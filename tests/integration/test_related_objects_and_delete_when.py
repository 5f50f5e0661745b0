"""Related objects and self-deletion: status rules read the Pods a child's pod template
labels with the parent's uid (grandchildren), and a kind's ``deleteWhen`` rule deletes
the parent once its work is done."""

from __future__ import annotations

from pathlib import Path

from engine.runtime.cluster.kube import Kube, Resource
from engine.tools import manifests
from tests.integration._engine import eventually, running_engine
from tests.integration._widgets import widget, write_kind

RULES = """\
observe:
  - apiVersion: v1
    kind: Pod
deleteWhen: "condition_status(child('Job', name ~ '-job'), 'Complete') == 'True'"
status:
  fields:
    pods: "related.Pod | map(attribute='metadata.name') | list"
"""

TEMPLATE = """\
{% if spec.job | default(false) %}
apiVersion: batch/v1
kind: Job
metadata:
  name: {{ name }}-job
spec:
  template:
    metadata:
      labels:
        stencil.dev/parent-uid: "{{ parent.metadata.uid }}"
    spec:
      restartPolicy: Never
      containers:
        - name: run
          image: busybox:1.36
{% else %}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ name }}-pods
spec:
  replicas: {{ spec.replicas }}
  selector:
    matchLabels:
      widget: {{ name }}
  template:
    metadata:
      labels:
        widget: {{ name }}
        stencil.dev/parent-uid: "{{ parent.metadata.uid }}"
    spec:
      containers:
        - name: web
          image: nginx:1.27
{% endif %}
"""


def test_status_reads_grandchildren_and_finished_parent_is_deleted(
    kube: Kube, namespace: str, widgets: Resource, tmp_path: Path
) -> None:
    templates = write_kind(tmp_path / "templates", {"children.yaml": TEMPLATE}, RULES)
    pods = kube.resource("v1", "Pod")

    def pod_names() -> list[str]:
        return sorted(
            p["metadata"]["name"]
            for p in kube.list(pods, namespace)[0]
            if p["metadata"]["name"].startswith("pods-")
        )

    def status_pods(name: str) -> list[str] | None:
        obj = kube.get(widgets, name, namespace)
        return ((obj or {}).get("status") or {}).get("pods")

    with running_engine(kube, templates, namespace):
        # Grandchildren: the Deployment's Pods, named in the parent's status, following scale.
        manifests.apply_all(kube, [widget("pods", replicas=2)], namespace)
        eventually(
            lambda: len(pod_names()) == 2 and status_pods("pods") == pod_names(),
            what="status.pods to name the two Pods",
        )
        manifests.apply_all(kube, [widget("pods", replicas=1)], namespace)
        eventually(
            lambda: len(pod_names()) == 1 and status_pods("pods") == pod_names(),
            what="status.pods to follow the scale-down",
        )

        # deleteWhen: once the Job completes, the parent deletes itself (and the Job goes with it).
        manifests.apply_all(kube, [widget("batch", job=True)], namespace)
        eventually(
            lambda: kube.get(widgets, "batch", namespace) is None,
            timeout=120,
            what="the Widget to be deleted once its Job completed",
        )
        assert kube.get(widgets, "pods", namespace) is not None
