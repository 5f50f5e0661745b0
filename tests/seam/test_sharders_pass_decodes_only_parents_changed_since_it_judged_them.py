"""The sharder passes over every parent each second.  A parent it judged and left alone is
skipped, undecoded, until its resourceVersion or the live members change: an idle pass over
every parent decodes none, a changed parent is judged again alone, and a member joining has
every parent judged again (some now belong to it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine.core.decisions.coordination import sharding
from engine.runtime.cluster.informers import Across
from tests._deadlines import eventually
from tests.integration._widgets import write_kind
from tests.seam._fake import FakeKube
from tests.seam.test_shard_handover_old_owner_stops_before_new_owner_starts import NAMESPACE, Replica, lease
from tests.seam.test_shard_moved_parent_waits_until_its_children_reach_the_new_owners_cache import (
    TWO_CONFIGMAPS,
    loaded,
)
from tests.seam.test_sharders_first_pass_over_a_backlog_sends_as_it_judges import sharder_of

PARENTS = 40
WIDGET = "tests.stencil.dev/v1"


def test_a_pass_decodes_only_the_parents_changed_since_it_judged_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    decoded: list[str] = []
    read = Across.get

    def counting_get(self: Across, namespace: str | None, name: str) -> Any:
        found = read(self, namespace, name)
        # The sharder's cache keeps metadata alone: a parent with its spec is a reconcile's read.
        if found is not None and found.get("kind") == "Widget" and "spec" not in found:
            decoded.append(name)
        return found

    monkeypatch.setattr(Across, "get", counting_get)
    fake = FakeKube()
    for i in range(PARENTS):
        meta = {"name": f"w{i:03d}", "namespace": NAMESPACE}
        fake.add({"apiVersion": WIDGET, "kind": "Widget", "metadata": meta, "spec": {"value": "1"}})
    lease(fake, "b")
    engine = loaded({"b": Replica(fake, "b", [])}, write_kind(tmp_path / "templates", TWO_CONFIGMAPS))["b"]
    try:
        sharder, everything = sharder_of(engine, "b")

        def versions() -> dict[str, str | None]:
            return {name: version for _, name, version in everything.versions()}

        def one_pass() -> tuple[int, list[str]]:
            decoded.clear()
            return sharder.tick(), sorted(decoded)

        names = sorted(versions())
        assert one_pass() == (PARENTS, names)  # every parent assigned
        assert one_pass() == (0, names)  # each at its new version, from the write: judged, settled
        assert one_pass() == (0, [])  # nothing changed: nothing decoded

        before = versions()["w007"]
        fake.update_spec(WIDGET, "Widget", NAMESPACE, "w007", value="2")
        eventually(lambda: versions()["w007"] != before, what="w007's change in the cache")
        assert one_pass() == (0, ["w007"])
        assert one_pass() == (0, [])

        fake.remove(WIDGET, "Widget", NAMESPACE, "w008")
        eventually(lambda: "w008" not in versions(), what="w008 gone from the cache")
        assert one_pass() == (0, [])

        lease(fake, "c")  # a member joins: every parent is judged again, and some move to it
        eventually(lambda: sharder.members() == {"b", "c"}, what="c live")
        drains, judged = one_pass()
        assert judged == [name for name in names if name != "w008"]
        moving = {
            name
            for name in judged
            if sharding.owner_of(sharding.parent_key(WIDGET, "Widget", NAMESPACE, name), {"b", "c"}) == "c"
        }
        assert drains == len(moving) > 0
    finally:
        engine.stop(grace=0)
