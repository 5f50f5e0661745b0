"""A kind's revision that some parent still records is never deleted, even by an engine that has
not seen that parent.

Beyond the ten newest spare revisions, a kind's revisions that no parent records are deleted.  Two
engines could miss the parent that records one:

- one just started, whose cache of the parents is still being filled (the fake's listing of the
  Widgets is held back until the test lets it through);
- a sharded replica, whose cache holds only the parents of its own shard (it fills a cache of
  every parent's record, and drops it once read).

Each test leaves revision 1 recorded by the parent it cannot see, makes thirteen revisions (so 1
and 2 would go), and checks that 2 goes and 1 stays.
"""

from __future__ import annotations

import threading
from pathlib import Path

from engine.core.decisions.coordination import sharding
from engine.core.decisions.coordination.rollout import KIND_REVISION
from engine.runtime.serving import manager
from tests._deadlines import eventually
from tests.integration._widgets import VALUE_CONFIGMAP, write_kind
from tests.seam._fake import FakeKube

NAMESPACE = "ns"
REVISIONS = 13  # 1 recorded, 13 the newest: 2 to 12 are eleven spare, one beyond the history of ten


def recording_revision_1(fake: FakeKube, labels: dict[str, str]) -> None:
    """A Widget whose status says it was rendered from the kind's revision 1."""
    fake.add(
        {
            "apiVersion": "tests.stencil.dev/v1",
            "kind": "Widget",
            "metadata": {"name": "w", "namespace": NAMESPACE, "labels": labels},
            "spec": {"value": "1"},
            "status": {KIND_REVISION: {"number": 1, "since": "2026-11-28T00:00:00Z"}},
        }
    )


def revisions_made(engine: manager.Engine, templates: Path) -> None:
    """Load the Widget kind ``REVISIONS`` times, its folder changed before each load after the first."""
    for number in range(1, REVISIONS + 1):
        write_kind(templates, {"data.yaml": VALUE_CONFIGMAP + "#" * number + "\n"})
        engine.load()


def test_an_engine_whose_cache_is_still_filled_deletes_nothing_until_it_is(tmp_path: Path) -> None:
    fake = FakeKube()
    recording_revision_1(fake, {})
    listed = threading.Event()
    fake.hang_lists["widgets"] = listed
    templates = tmp_path / "templates"
    engine = manager.Engine(fake, templates, manager.Options(run_workers=False))
    try:
        revisions_made(engine, templates)
        assert engine.revisions.numbers("widget") == list(range(1, REVISIONS + 1))

        listed.set()
        (controller,) = engine.controllers.values()
        assert controller.parents.wait_for_sync(5)
        engine.tick()
        assert engine.revisions.numbers("widget") == [1, *range(3, REVISIONS + 1)]
    finally:
        listed.set()
        engine.stop(grace=0)


def test_a_sharded_replica_reads_the_parents_of_other_shards_before_it_deletes(tmp_path: Path) -> None:
    fake = FakeKube()
    recording_revision_1(fake, {sharding.OWNER_LABEL: "b"})
    templates = tmp_path / "templates"
    engine = manager.Engine(fake, templates, manager.Options(run_workers=False, shard="a"))
    try:
        revisions_made(engine, templates)
        (controller,) = engine.controllers.values()
        assert controller.parents.wait_for_sync(5)
        assert controller.parents.versions() == []  # replica a does not cache b's parent
        pruned = [1, *range(3, REVISIONS + 1)]
        assert eventually(lambda: engine.tick() or engine.revisions.numbers("widget") == pruned)
        engine.tick()
        assert engine.revisions.numbers("widget") == pruned  # and nothing more on a later tick
        everyone = engine.informers.get(controller.resource, namespace=None)
        assert everyone is None  # the cache of every parent is dropped once read
    finally:
        engine.stop(grace=0)
