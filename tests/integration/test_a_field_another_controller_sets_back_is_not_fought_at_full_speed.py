"""A template that renders a field another controller owns in practice, here a Deployment's
``deployment.kubernetes.io/revision`` annotation (the Deployment controller sets it to its
ReplicaSet's revision), is not a hot loop: after three restores in a row the engine restores
the field ever more slowly, and the parent says why it is not Ready, naming the field and the
other manager, in its ChildrenApplied condition and in a Warning event.

Applies are counted by the API server (``apiserver_request_total``, verb APPLY): only the
engine applies Deployments here."""

from __future__ import annotations

import time
from pathlib import Path

from engine.runtime.cluster.kube import Kube, Resource
from engine.testing import write_requests
from engine.tools import manifests
from tests.integration._engine import conditions, eventually, running_engine
from tests.integration._widgets import widget, write_kind

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ name }}-dns
  annotations:
    deployment.kubernetes.io/revision: "{{ spec.revision }}"
spec:
  replicas: 1
  selector:
    matchLabels: {app: "{{ name }}-dns"}
  template:
    metadata:
      labels: {app: "{{ name }}-dns"}
    spec:
      containers:
        - name: dns
          image: registry.k8s.io/coredns/coredns:v1.12.0
"""
WINDOW = 60.0
HANDFUL = 8


def deployment_applies(kube: Kube) -> float:
    return sum(v for k, v in write_requests(kube).items() if k.startswith("APPLY deployments"))


def test_sixty_seconds_of_a_contested_annotation_cost_a_handful_of_applies(
    kube: Kube, namespace: str, widgets: Resource, tmp_path: Path
) -> None:
    templates = write_kind(tmp_path / "templates", {"deployment.yaml": DEPLOYMENT})
    events = kube.resource("v1", "Event")
    with running_engine(kube, templates, namespace):
        before = deployment_applies(kube)
        started = time.monotonic()
        # Revision "7": the Deployment controller sets "1" for the first ReplicaSet.
        manifests.apply_all(kube, [widget("w", revision=7)], namespace)

        def contested() -> dict[str, str] | None:
            applied = conditions(kube.get(widgets, "w", namespace)).get("ChildrenApplied") or {}
            return applied if applied.get("reason") == "ContestedField" else None

        applied = eventually(contested, what="ChildrenApplied: ContestedField")
        assert 'metadata.annotations["deployment.kubernetes.io/revision"]' in applied["message"]
        time.sleep(max(WINDOW - (time.monotonic() - started), 0.0))
        applies = deployment_applies(kube) - before

        ready = conditions(kube.get(widgets, "w", namespace))["Ready"]
        assert ready["status"] == "False" and ready["reason"] == "ContestedField", ready
        listed, _ = kube.list(events, namespace)
        warnings = [e["message"] for e in listed if e.get("reason") == "ContestedField"]
        assert warnings, "no ContestedField event"
        assert "kube-controller-manager" in warnings[0], warnings[0]
    print(f"applies of the Deployment in {WINDOW:.0f} s: {applies:.0f}")
    assert applies <= HANDFUL, f"{applies:.0f} applies in {WINDOW:.0f} s"
