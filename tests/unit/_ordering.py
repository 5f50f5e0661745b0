"""Rendered children with their templates, and observed copies at chosen health, for the ordering tests;
``rollout`` is the status a Deployment's controller writes, for every test that observes one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.core.model.kinds import Template

NOW = "2026-03-01T12:00:00Z"
FOLDER = Path("templates/guestbook")


def template(template_id: str, *after: str) -> Template:
    return Template(FOLDER / f"{template_id}.yaml", "", template_id, after)


def deployment(name: str, replicas: int = 1) -> dict[str, Any]:
    """A Deployment as rendered: no status."""
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "ns"},
        "spec": {"replicas": replicas},
    }


def service(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "namespace": "ns"}, "spec": {}}


PROGRESSING = {"type": "Progressing", "status": "True", "reason": "NewReplicaSetAvailable"}


def rollout(replicas: int, ready: int, *conditions: dict[str, Any]) -> dict[str, Any]:
    """A Deployment's status at generation 1: all ``replicas`` updated, ``ready`` of them available."""
    status: dict[str, Any] = {"observedGeneration": 1, "replicas": replicas, "updatedReplicas": replicas}
    return status | {"readyReplicas": ready, "availableReplicas": ready, "conditions": list(conditions)}


def observed(child: dict[str, Any], *, available: bool, uid: str = "u-1") -> dict[str, Any]:
    """``child`` as the cache has it: with a uid, and a status whose replicas are all available or none."""
    wanted = child["spec"].get("replicas", 1)
    condition = {"type": "Available", "status": "True" if available else "False", "reason": "X"}
    return {
        **child,
        "apiVersion": child["apiVersion"],
        "metadata": {**child["metadata"], "uid": uid, "generation": 1},
        "status": rollout(wanted, wanted if available else 0, PROGRESSING, condition),
    }
