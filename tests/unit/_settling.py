"""Looks at an example through its settling window: a Widget parent as the engine writes its
status, and a child Deployment with the engine's ``managedFields`` entry stamped with a time."""

from __future__ import annotations

import copy
from typing import Any

from engine.tools.kindtest import settling
from tests.unit._live import live_deployment

NAMESPACE = "widget-web-3f2a9c"
PARENT_UID = "uid-of-the-widget"


def parent(
    ready: str = "True",
    *,
    reason: str = "AllReady",
    message: str = "",
    version: str = "10",
    observed: int = 1,
    status_observed: int | None = None,
) -> dict[str, Any]:
    """The Widget ``web`` at generation 1, with a Ready condition of generation ``observed``."""
    condition = {"type": "Ready", "status": ready, "reason": reason, "observedGeneration": observed}
    if message:
        condition["message"] = message
    return {
        "apiVersion": "tests.stencil.dev/v1",
        "kind": "Widget",
        "metadata": {
            "name": "web",
            "namespace": NAMESPACE,
            "uid": PARENT_UID,
            "generation": 1,
            "resourceVersion": version,
        },
        "status": {
            "observedGeneration": observed if status_observed is None else status_observed,
            "conditions": [condition],
        },
    }


def child(
    *, applied_at: str = "2026-01-01T00:00:00Z", replicas: int = 2, version: str = "20"
) -> dict[str, Any]:
    """The parent's Deployment, last applied by the engine at ``applied_at``."""
    deployment = copy.deepcopy(live_deployment(NAMESPACE, PARENT_UID, replicas=replicas))
    deployment["metadata"]["resourceVersion"] = version
    deployment["metadata"]["managedFields"][0]["time"] = applied_at
    return deployment


def look(
    at: float, *parents: dict[str, Any], children: list[dict[str, Any]] | None = None
) -> settling.Observation:
    return settling.Observation(at, tuple(parents), None if children is None else tuple(children))
