"""Children whose live form the server makes differ from the rendered one (``_normalized``: a
Secret's ``stringData``, admission's token volume and mounts, defaults, quantities, nulls and
empty values, claim templates) reach Ready, stay Ready for 60 s while the parent is woken again
and again (a resync every few seconds, edits of its metadata), and cost no write after Ready: no
false drift, no contest."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

from engine.runtime.cluster.kube import Kube, Resource
from engine.testing import write_requests
from engine.tools import manifests
from tests.integration._engine import conditions, eventually, running_engine
from tests.integration._normalized import CHILD_RESOURCES, TEMPLATES, volume_for_claims
from tests.integration._widgets import widget, write_kind

WATCHED = 60.0  # seconds the parent is watched once Ready
WAKES = 6  # edits of its metadata meanwhile, besides the resyncs


def child_writes(kube: Kube) -> Counter[str]:
    return Counter(
        {k: v for k, v in write_requests(kube).items() if k.split(" ", 1)[1].split("/")[0] in CHILD_RESOURCES}
    )


def ready(kube: Kube, widgets: Resource, namespace: str) -> dict[str, str]:
    return conditions(kube.get(widgets, "w", namespace)).get("Ready") or {}


def test_normalized_children_stay_ready_for_a_minute_with_no_write_after_ready(
    kube: Kube, namespace: str, widgets: Resource, tmp_path: Path
) -> None:
    templates = write_kind(tmp_path / "templates", TEMPLATES)
    volumes = kube.resource("v1", "PersistentVolume")
    volume = volume_for_claims(f"{namespace}-data")
    kube.apply(volume)
    try:
        with running_engine(kube, templates, namespace, resync=3.0) as engine:
            manifests.apply_all(kube, [widget("w", value="s3cret")], namespace)
            eventually(
                lambda: ready(kube, widgets, namespace).get("status") == "True",
                timeout=180,
                what=f"Ready True (now {ready(kube, widgets, namespace)})",
            )
            before = child_writes(kube)
            engine_before = dict(engine.counters)
            started, wakes, verdicts = time.monotonic(), 0, []
            while (elapsed := time.monotonic() - started) < WATCHED:
                if wakes < WAKES and elapsed >= wakes * WATCHED / WAKES:
                    wakes += 1
                    annotation = [
                        {"op": "add", "path": "/metadata/annotations", "value": {"wake": str(wakes)}}
                    ]
                    kube.patch_json(widgets, "w", namespace, annotation)
                verdicts.append(ready(kube, widgets, namespace))
                time.sleep(1.0)
            after = child_writes(kube)
            engine_after = dict(engine.counters)
    finally:
        kube.delete(volumes, volume["metadata"]["name"], None)

    not_ready = [v for v in verdicts if v.get("status") != "True"]
    assert not not_ready, f"Ready left True: {not_ready[0]}"
    # The engine's own count of its applies, prunes and status writes (the server's counts
    # include other tests' namespaces being deleted), and the server's applies of these kinds.
    assert engine_after == engine_before, f"the engine wrote after Ready: {engine_before} -> {engine_after}"
    applies = {k: v for k, v in (after - before).items() if k.startswith("APPLY")}
    assert not applies, f"applies to children after Ready: {applies}"
