"""A parent handed to another replica is not reconciled there until its children are cached there.

The bad ordering is forced: the new owner's watch of ConfigMaps is held back, so the parent's
event reaches its cache and the children's relabel events do not.  A reconcile then would find
no children, and try to create them (and would not prune what is no longer rendered); instead
it waits, writing nothing, and once the events are let through it reconciles with no write.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from engine.core.decisions.coordination import sharding
from engine.core.model.objects import Key
from engine.runtime.reconciling.moving import handover
from engine.runtime.serving import manager
from engine.runtime.serving import sharding as shards
from tests._deadlines import eventually
from tests.integration._widgets import VALUE_CONFIGMAP, write_kind
from tests.seam._fake import FakeKube
from tests.seam.test_shard_handover_old_owner_stops_before_new_owner_starts import (
    NAMESPACE,
    WIDGET,
    Replica,
    lease,
)
from tests.unit._kinds import configmap

MORE_CONFIGMAP = configmap("  also: here\n", name="{{ name }}-more")
TWO_CONFIGMAPS = {"data.yaml": VALUE_CONFIGMAP, "more.yaml": MORE_CONFIGMAP}


def widget(fake: FakeKube, name: str) -> str:
    """A Widget ``name`` whose children are the two ConfigMaps; its uid."""
    meta = {"name": name, "namespace": NAMESPACE}
    uid: str = fake.add({"apiVersion": WIDGET, "kind": "Widget", "metadata": meta, "spec": {"value": "1"}})[
        "metadata"
    ]["uid"]
    return uid


def loaded(views: dict[str, Replica], templates: Path) -> dict[str, manager.Engine]:
    """One engine per replica, each sharded under its name, its kinds loaded; no workers."""
    engines = {
        who: manager.Engine(view, templates, manager.Options(run_workers=False, shard=who))
        for who, view in views.items()
    }
    for engine in engines.values():
        engine.load()
    return engines


class HeldChildWatch(Replica):
    """A replica whose watch of ConfigMaps delivers nothing while ``flowing`` is clear."""

    def __init__(self, fake: FakeKube, name: str, log: list[tuple[str, str, str]]) -> None:
        super().__init__(fake, name, log)
        self.flowing = threading.Event()
        self.flowing.set()

    def watch(self, res: Any, *args: Any, **kw: Any) -> Iterator[tuple[str, Any]]:
        for event in self._fake.watch(res, *args, **kw):
            if res.kind == "ConfigMap":
                self.flowing.wait()
            yield event


def test_the_new_owner_writes_nothing_until_every_child_handed_over_is_in_its_cache(tmp_path: Path) -> None:
    fake = FakeKube()
    log: list[tuple[str, str, str]] = []
    name = next(
        n
        for n in (f"w{i}" for i in range(100))
        if sharding.owner_of(sharding.parent_key(WIDGET, "Widget", NAMESPACE, n), {"a", "b"}) == "b"
    )
    key, children = Key(NAMESPACE, name), (f"{name}-data", f"{name}-more")
    lease(fake, "a")
    uid = widget(fake, name)
    views = {"a": Replica(fake, "a", log), "b": HeldChildWatch(fake, "b", log)}
    engines = loaded(views, write_kind(tmp_path / "templates", TWO_CONFIGMAPS))
    try:
        (a,), (b,) = (list(engines[who].controllers.values()) for who in ("a", "b"))
        sharder = shards.Sharder(engines["a"], namespace=NAMESPACE)
        eventually(lambda: sharder.tick() == 0 and a.parents.get(NAMESPACE, name), what="a's")
        a.reconcile(key)
        for child in children:  # each child is labelled with its parent's owner, so only a caches it
            labels = sharding.labels_of(fake.objects[("v1", "ConfigMap", NAMESPACE, child)])
            assert labels[sharding.OWNER_LABEL] == "a"
        eventually(lambda: engines["a"].children.count(uid) == 2, what="a caching both")
        assert engines["b"].children.count(uid) == 0

        # "b" joins; "a" lets go; b's watch of ConfigMaps is held back from here on.
        lease(fake, "b")
        eventually(lambda: sharder.members() == {"a", "b"}, what="b's Lease seen")
        sharder.tick()
        views["b"].flowing.clear()
        eventually(
            lambda: sharding.DRAIN_LABEL in sharding.labels_of(a.parents.get(NAMESPACE, name) or {}),
            what="the drain in a's cache",
        )
        a.reconcile(key)
        record = sharding.HANDED_OVER
        assert fake.objects[(WIDGET, "Widget", NAMESPACE, name)]["metadata"]["annotations"][record] == "b/2"
        eventually(lambda: sharder.tick() == 0 and b.parents.get(NAMESPACE, name), what="b's")

        # The parent is in b's cache, its children are not: b waits, and writes nothing.
        before = len(fake.writes())
        assert b.reconcile(key).requeue_after == handover.ARRIVAL_WAIT
        assert engines["b"].children.count(uid) == 0
        assert fake.writes()[before:] == []
        assert not [entry for entry in log if entry[0] == "b"]

        # The relabel events arrive: b reconciles, and finds nothing to write.
        views["b"].flowing.set()
        eventually(lambda: engines["b"].children.count(uid) == 2, what="b caching both")
        assert b.reconcile(key).requeue_after is None
        assert not [entry for entry in log if entry[0] == "b"]
        assert fake.writes()[before:] == []
    finally:
        views["b"].flowing.set()
        for engine in engines.values():
            engine.stop(grace=0)
