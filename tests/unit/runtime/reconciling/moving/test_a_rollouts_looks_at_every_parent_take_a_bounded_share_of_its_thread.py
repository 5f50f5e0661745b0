"""A rollout under way looks at every cached parent on each tick.  A look that takes t seconds of
CPU is followed by the next no sooner than t / LOOK_SHARE later, so a kind of many parents whose
backlog keeps its rollout unsettled spends a bounded share of the reload thread on looking; a
change to the KindRollout is looked at on the next tick whatever the last look cost."""

from __future__ import annotations

import datetime
from types import SimpleNamespace
from typing import Any

from engine.core.model import kinds
from engine.runtime.cluster.informers import Across
from engine.runtime.cluster.kube import Resource
from engine.runtime.cluster.watching import Informer
from engine.runtime.reconciling.moving import rollouts
from engine.runtime.reconciling.revisions import Lineage
from engine.runtime.reconciling.workers.queue import WorkQueue
from tests.unit import _rollouts as r
from tests.unit._shipped import ROOT

NETWORKS = Resource("samplecrd.k8s.io", "v1", "Network", "networks", True)
NOW = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
LOOK = 0.05  # CPU seconds each look at the parents takes here


class Clocks:
    """The wall clock a tick reads, and a CPU clock that each look at the parents advances."""

    def __init__(self) -> None:
        self.now = 0.0
        self.cpu = 0.0

    def wall(self) -> float:
        return self.now

    def thread(self) -> float:
        return self.cpu


def _rollout(clocks: Clocks, informer: Informer | None = None) -> tuple[rollouts.Rollout, list[str]]:
    if informer is None:
        informer = Informer(None, NETWORKS)  # type: ignore[arg-type]  # fed by hand; it never lists
        informer._synced.set()  # as if it had listed them
    for i in range(3):
        meta = {"resourceVersion": str(i + 1), "uid": f"p-{i}"}
        obj: dict[str, Any] = r.parent(f"p-{i}", None)
        informer.store.apply("ADDED", {**obj, "metadata": {**obj["metadata"], **meta}})
    host = SimpleNamespace(
        revisions=SimpleNamespace(write_status=lambda name, said: None), options=SimpleNamespace(metrics=None)
    )
    watched = rollouts.Rollout(
        host,  # type: ignore[arg-type]
        "network",
        Across({None: informer}),
        WorkQueue(),
        clock=clocks.wall,
        cpu_clock=clocks.thread,
    )
    looked: list[str] = []
    real = watched._standings

    def standings() -> Any:
        looked.append("look")
        clocks.cpu += LOOK
        return real()

    watched._standings = standings  # type: ignore[method-assign]
    watched.update(Lineage(kinds={1: kinds.load_kind(ROOT / "templates" / "network")}, latest=1), None)
    return watched, looked


def test_the_next_look_waits_for_the_last_looks_cost_over_the_share() -> None:
    clocks = Clocks()
    watched, looked = _rollout(clocks)
    gap = LOOK / rollouts.LOOK_SHARE  # 10 s

    assert watched.tick(NOW) is not None and looked == ["look"]  # no parent is on revision 1: unsettled
    clocks.now += 1.0
    assert watched.tick(NOW) is None and looked == ["look"]  # 1 s later: too soon
    clocks.now += gap - 1.0 - 0.01
    assert watched.tick(NOW) is None and looked == ["look"]
    clocks.now += 0.01
    assert watched.tick(NOW) is not None and looked == ["look", "look"]  # t / LOOK_SHARE later


def test_a_change_to_the_kindrollout_is_looked_at_on_the_next_tick() -> None:
    clocks = Clocks()
    watched, looked = _rollout(clocks)
    assert watched.tick(NOW) is not None and looked == ["look"]
    clocks.now += 1.0
    watched.spec_changed({"metadata": {"name": "network"}, "spec": {"paused": True}})
    assert watched.tick(NOW) is not None and looked == ["look", "look"]
    assert watched.paused


def test_nothing_is_looked_at_before_the_parents_cache_is_filled() -> None:
    """An engine just started lists its parents one at a time: a look at the first few, all on the
    target, would end the rollout for the parents not listed yet."""
    clocks = Clocks()
    filling = Informer(None, NETWORKS)  # type: ignore[arg-type]
    watched, looked = _rollout(clocks, filling)
    assert watched.tick(NOW) is None and looked == []
    filling._synced.set()
    assert watched.tick(NOW) is not None and looked == ["look"]
