"""No spec update is lost to the engine's own status writes.

200 spec updates race the engine's own status writes on 20 parents and every parent
ends with children at its last spec and Ready at its last generation.

The status mirrors the spec (a ``status.fields`` rule), so every reconcile writes the
status while the spec keeps changing under it.  A write's answer is older than a spec
update the watch may already have delivered; a cache that took that answer would
forget the newer spec, and nothing would bring it back before the resync, set to
600 s here, far beyond the wait below.

On a local link that window, between the server making a write and the engine reading
its answer, is about a millisecond wide: too narrow for 200 updates to hit it often.
The engine's client here reads the answers to its status writes ``ANSWER_DELAY`` late, as
from a busy server or network, and runs a worker per parent, so that most parents have a
status write in flight while their updates land.  (An engine whose cache took those
answers lost 13 to 18 of the 20 parents this way.)
"""

from __future__ import annotations

import contextlib
import threading
import time
from pathlib import Path
from typing import Any

from engine.localcluster import LocalCluster
from engine.runtime.cluster.kube import Kube, Resource
from engine.tools import manifests
from tests.integration._engine import conditions, eventually, running_engine
from tests.integration._widgets import VALUE_CONFIGMAP, widget, write_kind

PARENTS = 20
UPDATES_PER_PARENT = 10
WRITERS = 4  # threads sending the spec updates, each to its own parents, in order
WORKERS = PARENTS  # reconciles at a time: every parent can have a status write in flight
CONVERGENCE = 60.0  # seconds; a lost update would wait for the 600 s resync
ANSWER_DELAY = 1.0  # seconds between the server writing a status and the engine reading its answer


STATUS_RULES = """\
status:
  fields:
    value: "spec.value"
"""


class SlowAnswers(Kube):
    """The engine's client, reading the answers to its status writes ``ANSWER_DELAY`` late."""

    def patch_status(self, *args: Any, **kw: Any) -> Any:
        written = super().patch_status(*args, **kw)
        time.sleep(ANSWER_DELAY)  # latency injected, not waiting for anything
        return written


def value(update: int) -> str:
    return f"update-{update}"


def name(i: int) -> str:
    return f"racer-{i}"


def send_updates(kube: Kube, widgets: Resource, namespace: str, parents: list[str]) -> None:
    """Every update of ``parents``, round after round, without waiting for the engine."""
    for update in range(1, UPDATES_PER_PARENT + 1):
        for parent in parents:
            kube.request(
                "PATCH",
                widgets.path(namespace, parent),
                {"spec": {"value": value(update)}},
                content_type="application/merge-patch+json",
            )


def behind(kube: Kube, widgets: Resource, namespace: str) -> dict[str, str]:
    """Each parent not yet at its last spec, with what it shows instead."""
    configmaps = kube.resource("v1", "ConfigMap")
    data = {
        cm["metadata"]["name"]: (cm.get("data") or {}).get("value")
        for cm in kube.list(configmaps, namespace)[0]
    }
    parents = {p["metadata"]["name"]: p for p in kube.list(widgets, namespace)[0]}
    last = value(UPDATES_PER_PARENT)
    lagging: dict[str, str] = {}
    for i in range(PARENTS):
        parent: dict[str, Any] = parents.get(name(i), {})
        generation = parent.get("metadata", {}).get("generation")
        status = parent.get("status") or {}
        ready = conditions(parent).get("Ready", {})
        shown = {
            "spec": (parent.get("spec") or {}).get("value"),
            "child": data.get(f"{name(i)}-data"),
            "status.value": status.get("value"),
            "generation": generation,
            "observedGeneration": status.get("observedGeneration"),
            "Ready": ready.get("status"),
            "Ready.observedGeneration": ready.get("observedGeneration"),
        }
        expected = {
            "spec": last,
            "child": last,
            "status.value": last,
            "generation": generation,
            "observedGeneration": generation,
            "Ready": "True",
            "Ready.observedGeneration": generation,
        }
        if generation is None or shown != expected:
            lagging[name(i)] = repr(shown)
    return lagging


def test_spec_updates_racing_status_writes_are_never_lost(
    kube: Kube, namespace: str, widgets: Resource, local_cluster: LocalCluster, tmp_path: Path
) -> None:
    templates = write_kind(tmp_path / "templates", {"configmap.yaml": VALUE_CONFIGMAP}, STATUS_RULES)
    slow = SlowAnswers.from_kubeconfig(str(local_cluster.kubeconfig))
    with (
        contextlib.closing(slow),
        running_engine(slow, templates, namespace, resync=600, workers=WORKERS) as engine,
    ):
        eventually(engine.synced, what="the engine's caches to sync")
        manifests.apply_all(kube, [widget(name(i), value=value(0)) for i in range(PARENTS)], namespace)

        # 200 updates from a few threads, each thread owning its parents so that every
        # parent's last update is known; nobody waits for the engine in between.
        failures: list[BaseException] = []

        def writer(parents: list[str]) -> None:
            try:
                send_updates(kube, widgets, namespace, parents)
            except BaseException as exc:
                failures.append(exc)

        threads = [
            threading.Thread(target=writer, args=([name(i) for i in range(w, PARENTS, WRITERS)],))
            for w in range(WRITERS)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert failures == []

        lagging: dict[str, str] = {}

        def converged() -> bool:
            lagging.clear()
            lagging.update(behind(kube, widgets, namespace))
            return not lagging

        try:
            eventually(converged, timeout=CONVERGENCE, what="every parent at its last spec")
        except AssertionError as exc:
            detail = "\n".join(f"  {parent}: {shown}" for parent, shown in sorted(lagging.items()))
            raise AssertionError(f"{exc}; {len(lagging)} parents behind:\n{detail}") from None
