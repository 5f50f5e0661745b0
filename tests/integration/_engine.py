"""Running the engine inside a test, scoped to the test's namespace, and waiting on the cluster."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from engine.runtime.cluster.kube import Kube
from engine.runtime.serving import manager
from tests._deadlines import eventually as eventually  # the tests' one wait, asked for here too

ROOT = Path(__file__).resolve().parents[2]


@contextlib.contextmanager
def running_engine(
    kube: Kube, templates: Path, namespace: str | None, **options: Any
) -> Iterator[manager.Engine]:
    namespaces = (namespace,) if namespace else ()
    opts = manager.Options(**{"namespaces": namespaces, "workers": 2, "reload_interval": 0.3, **options})
    engine = manager.Engine(kube, templates, opts)
    engine.start()
    try:
        yield engine
    finally:
        engine.stop()


@contextlib.contextmanager
def cordon(kube: Kube) -> Iterator[list[str]]:
    """Every node marked unschedulable, so no new pod starts, until the block ends (whatever happens)."""
    nodes = kube.resource("v1", "Node")
    names = [n["metadata"]["name"] for n in kube.list(nodes)[0]]
    assert names, "the local plane has no nodes"

    def schedulable(value: bool) -> None:
        for name in names:
            kube.patch_json(
                nodes, name, None, [{"op": "add", "path": "/spec/unschedulable", "value": not value}]
            )

    schedulable(False)
    try:
        yield names
    finally:
        schedulable(True)


def conditions(obj: dict[str, Any] | None) -> dict[str, dict[str, Any]]:
    return {c["type"]: c for c in ((obj or {}).get("status") or {}).get("conditions", [])}


def condition_is(
    kube: Kube, res: Any, name: str, namespace: str, type_: str, status: str
) -> Callable[[], Any]:
    def probe() -> Any:
        obj = kube.get(res, name, namespace)
        cond = conditions(obj).get(type_)
        return obj if cond and cond["status"] == status else None

    return probe


def event_said(
    kube: Kube, namespace: str, reason: str, text: str = "", about: str = ""
) -> Callable[[], bool]:
    """A probe: an Event of ``reason`` in ``namespace`` says ``text`` (about the object ``about``).
    The engine sends its events from a thread of their own, so a test waits for one."""

    def probe() -> bool:
        events = kube.list(kube.resource("v1", "Event"), namespace)[0]
        return any(
            e["reason"] == reason
            and text in e["message"]
            and (not about or e["involvedObject"]["name"] == about)
            for e in events
        )

    return probe


def idle(engine: manager.Engine) -> bool:
    """No parent key waits in any controller's queue and none is being reconciled.

    Keys scheduled for later (``requeue_after``, a retry's backoff) are not counted:
    the queue does not say how many it holds.
    """
    return all(c.queue.depth == 0 and c.queue.processing() == 0 for c in list(engine.workers.values()))


def settled(is_idle: Callable[[], bool], witness: Callable[[], object]) -> Callable[[], bool]:
    """A probe for ``eventually``: true once two polls in a row find ``is_idle()`` and
    ``witness()`` unchanged between them.

    ``witness`` is what would move while work is still under way: the API server's count
    of the writes in question, the engine's own counters.  One idle poll is not enough:
    it can fall between a write and the watch event that wakes the next reconcile.
    """
    last: list[object] = []

    def probe() -> bool:
        if not is_idle():
            last.clear()
            return False
        seen = witness()
        steady = last == [seen]
        last[:] = [seen]
        return steady

    return probe
