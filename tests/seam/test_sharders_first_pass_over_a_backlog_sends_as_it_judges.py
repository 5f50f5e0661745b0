"""A sharder that starts on a backlog of unlabelled parents judges every one of them in its first
pass.  Judged all before any write is sent, every parent is decoded and held at once: on 30,000
Networks the sharder peaked 77 MiB above the other replicas, beyond the 1.5 KiB a parent that
docs/scaling.md gives the leader.  This forces a first pass far longer than ``CHUNK`` and checks,
at each label write, how many parents the sharder had decoded: never more than ``CHUNK`` ahead of
the writes it sent."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from engine.core.decisions.coordination import sharding
from engine.runtime.cluster.informers import Across
from engine.runtime.serving import manager
from engine.runtime.serving import sharding as shards
from tests._deadlines import eventually
from tests.integration._widgets import write_kind
from tests.seam._fake import FakeKube
from tests.seam.test_shard_handover_old_owner_stops_before_new_owner_starts import NAMESPACE, Replica, lease
from tests.seam.test_shard_moved_parent_waits_until_its_children_reach_the_new_owners_cache import (
    TWO_CONFIGMAPS,
    loaded,
)

CHUNK = 10
PARENTS = 5 * CHUNK + 3
WIDGET = "tests.stencil.dev/v1"


class Counted(Replica):
    """The sharder's view, noting at each parent label write how many parents were decoded by then."""

    def __init__(self, fake: FakeKube, decoded: list[int], ahead: list[int]) -> None:
        super().__init__(fake, "b", [])
        self.decoded, self.ahead = decoded, ahead
        self.lock = threading.Lock()
        self.sent = 0

    def patch_json(self, res: Any, name: str, namespace: str | None, ops: Any) -> dict[str, Any]:
        if res.kind == "Widget":
            with self.lock:
                self.ahead.append(self.decoded[0] - self.sent)
                self.sent += 1
        return super().patch_json(res, name, namespace, ops)


def sharder_of(engine: manager.Engine, member: str) -> tuple[shards.Sharder, Across]:
    """A sharder on ``engine`` that sees ``member`` live, and its cache of every parent, synced."""
    sharder = shards.Sharder(engine, namespace=NAMESPACE)
    eventually(lambda: sharder.members() == {member}, what=f"{member} live")
    (controller,) = engine.controllers.values()
    everything = engine.informers.ensure_across(
        controller.resource,
        engine.options.namespaces,
        metadata_only=True,
        transform=sharding.as_sharder_keeps,
    )
    eventually(lambda: everything.has_synced, what="the sharder's cache of parents")
    return sharder, everything


def test_the_first_pass_over_a_backlog_sends_its_writes_before_judging_further(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shards, "CHUNK", CHUNK)
    decoded = [0]
    read = Across.get

    def counting_get(self: Across, namespace: str | None, name: str) -> Any:
        found = read(self, namespace, name)
        # The sharder's cache keeps metadata alone: a parent with its spec is a reconcile's read.
        if found is not None and found.get("kind") == "Widget" and "spec" not in found:
            decoded[0] += 1
        return found

    monkeypatch.setattr(Across, "get", counting_get)
    fake = FakeKube()
    for i in range(PARENTS):  # a backlog: no parent has an owner yet
        meta = {"name": f"w{i:03d}", "namespace": NAMESPACE}
        fake.add({"apiVersion": WIDGET, "kind": "Widget", "metadata": meta, "spec": {"value": "1"}})
    lease(fake, "b")
    ahead: list[int] = []
    view = Counted(fake, decoded, ahead)
    engine = loaded({"b": view}, write_kind(tmp_path / "templates", TWO_CONFIGMAPS))["b"]
    try:
        sharder, _ = sharder_of(engine, "b")

        assert sharder.tick() == PARENTS
        assert len(ahead) == PARENTS
        assert max(ahead) <= CHUNK, ahead  # at most one chunk decoded and not yet sent
        assert ahead[0] == CHUNK  # the first write left after the first chunk was judged, not the last
        owners = {
            key[3]: sharding.labels_of(obj).get(sharding.OWNER_LABEL)
            for key, obj in fake.objects.items()
            if key[1] == "Widget"
        }
        assert set(owners.values()) == {"b"} and len(owners) == PARENTS
    finally:
        engine.stop(grace=0)
