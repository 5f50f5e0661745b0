"""Small object builders shared by the planning tests."""

from __future__ import annotations

from typing import Any

from engine.core.decisions.plans import planning

PARENT_UID = "11111111-2222-3333-4444-555555555555"
# The parent's namespace, and every other: these tests are about ownership, not namespaces.
REACH = planning.Reach("ns", ("*",), cluster_scoped=True)


def configmap(
    name: str, data: dict[str, str], *, owner: str | None = PARENT_UID, **meta: Any
) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name, "namespace": "ns", **meta}
    if owner is not None:
        metadata["ownerReferences"] = [
            {"apiVersion": "example.com/v1", "kind": "Parent", "name": "p", "uid": owner, "controller": True}
        ]
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata, "data": data}


def as_observed(applied: dict[str, Any], uid: str = "child-uid", **extra: Any) -> dict[str, Any]:
    """What the cache would hold after the server accepted ``applied``: server fields added."""
    meta = {
        **applied["metadata"],
        "uid": uid,
        "resourceVersion": "7",
        "creationTimestamp": "2026-01-01T00:00:00Z",
    }
    return {**applied, "metadata": meta, **extra}
