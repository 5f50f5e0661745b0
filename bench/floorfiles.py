"""The Go floor's input, rendered by the Python side, and the Go floor's binary.

The Go floor (``bench/gofloor/``, a client-go program) sends the requests the Python floor
(``bench.floor``) sends, without rendering anything: this module renders, before it starts,
every parent it will meet (the harness names them ``workload.parent(i, namespace)``), with
the engine's own ``rendering.render``, into one JSON file:

- each child as the engine applies it on creation: content hash set (``planning.with_hash``)
  and the create-only resourceVersion (``kube.CREATE_ONLY_VERSION``);
- the status Stencil writes once those children are healthy (``preview.parent_status``,
  the status ``stencil render --status`` shows: the values a cluster picks, such as a
  Service's node port, are the preview's, so only the size of that write is the real one);
- per child resource, the condition that makes a child ready: the one its healthy shape
  (``preview.healthy``) reports, ``Available`` for a Deployment; none (it exists) for a
  ConfigMap or a Service.

What only the cluster knows is a placeholder the Go floor replaces: the parent's uid in the
children's owner references, the time and the parent's generation in the status.  The
placeholder uid is part of the content hash, so the floor's hash annotations are not those
Stencil would write; nothing reads them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bench.workloads import ROOT, Workload
from engine.core.decisions.plans import planning
from engine.core.model import kinds
from engine.core.offline import preview
from engine.core.templating import rendering
from engine.localcluster import binaries
from engine.runtime.cluster.kube import CREATE_ONLY_VERSION, Kube

SOURCE = ROOT / "bench" / "gofloor"
UID = "gofloor-parent-uid-0000-000000000000"
NOW = "1999-09-09T09:09:09Z"  # a time no status of a run holds: the Go floor writes its own
GENERATION = 987654321  # a JSON number the status holds where the parent's generation goes
READY_CONDITIONS = ("Available", "Ready")


def binary() -> Path:
    """The Go floor, built from ``bench/gofloor`` into the binaries' cache on first use."""
    return binaries.ensure_module("gofloor", SOURCE)


def render(kube: Kube, workload: Workload, namespace: str, count: int) -> dict[str, Any]:
    """The input for parents ``0 .. count-1`` of ``workload`` in ``namespace``."""
    kind = kinds.load_kind(workload.kind_dir)
    resources: list[dict[str, str]] = []
    index: dict[tuple[str, str], int] = {}
    parents: dict[str, Any] = {}
    for i in range(count):
        parent = workload.parent(i, namespace)
        parent["metadata"].update(uid=UID, generation=GENERATION)
        children = []
        for child in rendering.render(kind, parent, [], is_namespaced=kube.is_namespaced):
            key = (child["apiVersion"], child["kind"])
            if key not in index:
                index[key] = len(resources)
                resources.append(_resource(kube, *key, ready_condition=ready_condition(child)))
            body = planning.with_hash(child)
            body["metadata"] = {**body["metadata"], "resourceVersion": CREATE_ONLY_VERSION}
            children.append({"resource": index[key], "name": child["metadata"]["name"], "object": body})
        status = preview.parent_status(kind, parent, NOW, is_namespaced=kube.is_namespaced)[0]["status"]
        parents[parent["metadata"]["name"]] = {"children": children, "status": status}
    return {
        "parent": _resource(kube, workload.api_version, workload.kind),
        "children": resources,
        "uid": UID,
        "now": NOW,
        "generation": str(GENERATION),
        "parents": parents,
    }


def write(kube: Kube, workload: Workload, namespace: str, count: int, path: Path) -> Path:
    """``render`` into ``path``, unless a run before this one (a restart) wrote it."""
    if not path.is_file():
        path.write_text(json.dumps(render(kube, workload, namespace, count)))
    return path


def ready_condition(child: dict[str, Any]) -> str:
    """The condition that says ``child`` is ready, as its healthy shape has it; "" if none does."""
    healthy = preview.healthy(child, NOW)
    types = {c.get("type") for c in (healthy.get("status") or {}).get("conditions") or ()}
    return next((condition for condition in READY_CONDITIONS if condition in types), "")


def _resource(kube: Kube, api_version: str, kind: str, ready_condition: str = "") -> dict[str, str]:
    found = kube.resource(api_version, kind)
    return {
        "group": found.group,
        "version": found.version,
        "resource": found.plural,
        "readyCondition": ready_condition,
    }
