"""A kind that is a state machine over its own children completes every step within seconds, with
the default resync: a blue-green switch scales the new Deployment up, moves the Service to it once
its rollout is done (the Deployment controller's last status update wakes the parent: nothing of
the Deployments changes after it), and scales the old one to 0 once the switch is observed, which
only the engine's own write of the Service shows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.runtime.cluster.kube import Kube, Resource
from engine.tools import manifests
from tests.integration._engine import eventually, running_engine
from tests.integration._widgets import widget, write_kind

DEPLOYMENT = """\
{% set service = child('Service', name) %}
{% set serving = service.spec.selector.color if service else none %}
{% for color in ['blue', 'green'] %}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ name }}-{{ color }}
spec:
  replicas: {{ 1 if color == spec.active or serving == color else 0 }}
  selector:
    matchLabels: {app: "{{ name }}", color: {{ color }}}
  template:
    metadata:
      labels: {app: "{{ name }}", color: {{ color }}}
    spec:
      containers:
        - name: web
          image: nginx:1.27
{% endfor %}
"""
SERVICE = """\
{% set next = child('Deployment', name ~ '-' ~ spec.active) %}
{% set found = ((next or {}).get('status') or {}).get('conditions') or [] %}
{% set done = found | selectattr('type', 'equalto', 'Progressing')
                    | selectattr('reason', 'equalto', 'NewReplicaSetAvailable') | list %}
{% set serving = (child('Service', name) or {}).get('spec', {}).get('selector', {}).get('color') %}
apiVersion: v1
kind: Service
metadata:
  name: {{ name }}
spec:
  selector: {app: "{{ name }}", color: {{ spec.active if done else (serving or spec.active) }}}
  ports:
    - port: 80
"""
KIND = "templates: [{file: deployments.yaml, collection: true}, service.yaml]\n"


def state(kube: Kube, namespace: str) -> tuple[Any, Any, Any]:
    deployments, services = kube.resource("apps/v1", "Deployment"), kube.resource("v1", "Service")
    service = kube.get(services, "w", namespace) or {}
    replicas = [
        (kube.get(deployments, f"w-{c}", namespace) or {}).get("spec", {}).get("replicas")
        for c in ("blue", "green")
    ]
    return service.get("spec", {}).get("selector", {}).get("color"), replicas[0], replicas[1]


def test_a_switch_from_blue_to_green_ends_with_blue_scaled_to_zero(
    kube: Kube, namespace: str, widgets: Resource, tmp_path: Path
) -> None:
    templates = write_kind(
        tmp_path / "templates", {"deployments.yaml": DEPLOYMENT, "service.yaml": SERVICE}, KIND
    )
    with running_engine(kube, templates, namespace):  # the default resync: ten minutes
        manifests.apply_all(kube, [widget("w", active="blue")], namespace)
        eventually(
            lambda: state(kube, namespace) == ("blue", 1, 0),
            what=f"blue serving ({state(kube, namespace)})",
        )

        manifests.apply_all(kube, [widget("w", active="green")], namespace)

        eventually(
            lambda: state(kube, namespace) == ("green", 0, 1),
            what=f"green serving, blue scaled to 0 (now {state(kube, namespace)}: service, blue, green)",
        )
