"""No ownership fights: a field the template does not render (``replicas``, left to an
autoscaler) is never reverted, and applying other changes leaves it as the other owner set it."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from engine.runtime.cluster.kube import Kube, Resource
from engine.testing import write_requests
from engine.tools import manifests
from tests.integration._engine import condition_is, eventually, idle, running_engine, settled
from tests.integration._widgets import widget, write_kind

TEMPLATE = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ name }}-web
spec:
  selector:
    matchLabels: {app: "{{ name }}"}
  template:
    metadata:
      labels: {app: "{{ name }}"}
    spec:
      containers:
        - name: web
          image: {{ spec.image }}
"""

# The observation window, opened once the engine has reacted to the autoscaler: for a later reaction.
QUIET_WINDOW = 1.0


def test_replicas_scaled_by_another_manager_stay_as_it_set_them(
    kube: Kube, namespace: str, widgets: Resource, tmp_path: Path
) -> None:
    templates = write_kind(tmp_path / "templates", {"deployment.yaml": TEMPLATE})
    deployments = kube.resource("apps/v1", "Deployment")

    def deployment() -> dict[str, Any]:
        found = kube.get(deployments, "w-web", namespace)
        assert found is not None
        return found

    def applies() -> int:
        return write_requests(kube)["APPLY deployments"]

    with running_engine(kube, templates, namespace) as engine:
        manifests.apply_all(kube, [widget("w", image="nginx:1.27")], namespace)
        parent = eventually(condition_is(kube, widgets, "w", namespace, "Ready", "True"), what="Ready")
        eventually(settled(lambda: idle(engine), applies), what="the engine to be idle after converging")
        before = applies()

        # An autoscaler scales through the scale subresource, as the HPA controller does.
        kube.request(
            "PATCH",
            deployments.path(namespace, "w-web", "scale"),
            {"spec": {"replicas": 3}},
            query={"fieldManager": "horizontal-pod-autoscaler"},
            content_type="application/merge-patch+json",
        )

        scaled = deployment()["metadata"]["generation"]

        def engine_saw_the_scale() -> bool:
            return any(
                child["metadata"]["name"] == "w-web" and child["metadata"]["generation"] >= scaled
                for child in engine.children.of(parent["metadata"]["uid"])
            )

        # The scale is in the engine's cache and every reconcile it woke has run.
        eventually(engine_saw_the_scale, what="the engine to see the scale")
        eventually(settled(lambda: idle(engine), applies), what="the engine to be idle after the scale")
        time.sleep(QUIET_WINDOW)  # the observation window
        assert deployment()["spec"]["replicas"] == 3
        assert applies() == before  # no fight: nothing sent at all

        # A change the template does render is applied, and replicas stay the autoscaler's.
        manifests.apply_all(kube, [widget("w", image="nginx:1.28")], namespace)
        eventually(
            lambda: deployment()["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.28",
            what="the image change",
        )
        assert deployment()["spec"]["replicas"] == 3
