"""A parent whose owner died holding it was never released, so nobody relabelled its children for
the new owner, and the new owner's cache will never hold them: it reads them from the server,
relabels them, and then reconciles against them, creating nothing."""

from __future__ import annotations

from pathlib import Path

from engine.core.decisions.coordination import sharding
from engine.core.model.objects import Key
from engine.runtime.serving import sharding as shards
from tests._deadlines import eventually
from tests.integration._widgets import write_kind
from tests.seam._fake import FakeKube
from tests.seam.test_shard_handover_old_owner_stops_before_new_owner_starts import (
    NAMESPACE,
    Replica,
    lease,
)
from tests.seam.test_shard_moved_parent_waits_until_its_children_reach_the_new_owners_cache import (
    TWO_CONFIGMAPS,
    loaded,
    widget,
)


def test_the_new_owner_relabels_the_dead_owners_children_and_creates_none(tmp_path: Path) -> None:
    fake = FakeKube()
    log: list[tuple[str, str, str]] = []
    name, children = "w", ("w-data", "w-more")
    lease(fake, "a")
    uid = widget(fake, name)
    engines = loaded(
        {who: Replica(fake, who, log) for who in ("a", "b")},
        write_kind(tmp_path / "templates", TWO_CONFIGMAPS),
    )
    try:
        (a,), (b,) = (list(engines[who].controllers.values()) for who in ("a", "b"))
        sharder = shards.Sharder(engines["b"], namespace=NAMESPACE)
        key = Key(NAMESPACE, name)
        eventually(lambda: sharder.tick() == 0 and a.parents.get(NAMESPACE, name), what="a owning it")
        a.reconcile(key)

        # "a" dies holding the parent (its Lease goes); "b" is given it.
        fake.remove("coordination.k8s.io/v1", "Lease", NAMESPACE, sharding.lease_name("a"))
        lease(fake, "b")
        eventually(lambda: sharder.members() == {"b"}, what="only b live")
        eventually(lambda: sharder.tick() == 0 and b.parents.get(NAMESPACE, name), what="b's parent")
        assert engines["b"].children.count(uid) == 0

        mark = len(log)
        assert b.reconcile(key).requeue_after is None
        for child in children:
            labels = sharding.labels_of(fake.objects[("v1", "ConfigMap", NAMESPACE, child)])
            assert labels[sharding.OWNER_LABEL] == "b"
        assert sorted(log[mark:]) == [
            ("b", "patch", "w-data"),
            ("b", "patch", "w-more"),
        ]  # no create or apply
    finally:
        for engine in engines.values():
            engine.stop(grace=0)
