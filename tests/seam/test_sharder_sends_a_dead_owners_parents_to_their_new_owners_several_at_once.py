"""A replica that dies holding a third of 30,000 parents leaves 10,000 label writes to the
sharder: sent one round trip after another, the last parent waits for all the others.  The
sharder has several under way at once; this fake answers none of the first ``WRITERS`` until
all of them have arrived, so a sharder sending one at a time fails here."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from engine.core.decisions.coordination import sharding
from engine.runtime.serving import sharding as shards
from tests._deadlines import eventually
from tests.integration._widgets import write_kind
from tests.seam._fake import FakeKube
from tests.seam.test_shard_handover_old_owner_stops_before_new_owner_starts import NAMESPACE, Replica, lease
from tests.seam.test_shard_moved_parent_waits_until_its_children_reach_the_new_owners_cache import (
    TWO_CONFIGMAPS,
    loaded,
)

PARENTS = 3 * shards.WRITERS
WIDGET = "tests.stencil.dev/v1"


class AnswersTogether(Replica):
    """The sharder's view: its first ``WRITERS`` parent label writes wait for one another."""

    def __init__(self, fake: FakeKube, log: list[tuple[str, str, str]]) -> None:
        super().__init__(fake, "b", log)
        self.together = threading.Barrier(shards.WRITERS, timeout=5)
        self.waited = 0
        self.counting = threading.Lock()

    def patch_json(self, res: Any, name: str, namespace: str | None, ops: Any) -> dict[str, Any]:
        with self.counting:
            first = res.kind == "Widget" and self.waited < shards.WRITERS
            self.waited += first
        if first:
            self.together.wait()  # BrokenBarrierError after 5 s alone
        return super().patch_json(res, name, namespace, ops)


def test_a_dead_owners_parents_are_sent_to_their_new_owner_several_writes_at_once(tmp_path: Path) -> None:
    fake = FakeKube()
    for i in range(PARENTS):
        labels = {sharding.OWNER_LABEL: "a"}  # "a" has no Lease: it is gone
        meta = {"name": f"w{i}", "namespace": NAMESPACE, "labels": labels}
        fake.add({"apiVersion": WIDGET, "kind": "Widget", "metadata": meta, "spec": {"value": "1"}})
    lease(fake, "b")
    log: list[tuple[str, str, str]] = []
    view = AnswersTogether(fake, log)
    engine = loaded({"b": view}, write_kind(tmp_path / "templates", TWO_CONFIGMAPS))["b"]
    try:
        sharder = shards.Sharder(engine, namespace=NAMESPACE)
        eventually(lambda: sharder.members() == {"b"}, what="b live")
        (controller,) = engine.controllers.values()
        across = engine.informers.ensure_across(controller.resource, engine.options.namespaces)
        eventually(lambda: across.has_synced, what="the sharder's cache of parents")

        assert sharder.tick() == PARENTS
        owners = {
            key[3]: sharding.labels_of(obj)[sharding.OWNER_LABEL]
            for key, obj in fake.objects.items()
            if key[1] == "Widget"
        }
        assert owners == {f"w{i}": "b" for i in range(PARENTS)}
        assert sorted(name for who, verb, name in log if verb == "patch") == sorted(owners)
    finally:
        engine.stop(grace=0)
