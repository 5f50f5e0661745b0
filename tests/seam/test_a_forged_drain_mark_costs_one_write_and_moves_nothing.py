"""A drain mark a tenant writes on its own parent costs one write and moves nothing: the owner,
seeing that the live members give the parent to itself, takes the mark off and keeps the parent,
relabelling none of its 40 children.  A mark the sharder writes, towards the member the parent
belongs to, still hands it over with its children.  Before, each forged mark relabelled every
child for the named replica and the next owner relabelled them all back.

The two replicas write through their own views of the fake, so each write is known by its sender.
"""

from __future__ import annotations

from pathlib import Path

from engine.core.decisions.coordination import sharding
from engine.core.model.objects import Key
from engine.runtime.serving import manager
from engine.runtime.serving import sharding as shards
from tests._deadlines import eventually
from tests.integration._widgets import write_kind
from tests.seam._fake import FakeKube
from tests.seam._harness import worker_of
from tests.seam.test_shard_handover_old_owner_stops_before_new_owner_starts import (
    NAMESPACE,
    WIDGET,
    Replica,
    lease,
)

MANY = (
    "{% for i in range(40) %}---\napiVersion: v1\nkind: ConfigMap\n"
    "metadata:\n  name: {{ name }}-{{ i }}\n{% endfor %}\n"
)


def belonging_to(member: str, skip: str = "") -> str:
    """A parent name that rendezvous gives to ``member`` of a and b (a choice of input)."""
    return next(
        n
        for n in (f"w{i}" for i in range(100))
        if n != skip
        and sharding.owner_of(sharding.parent_key(WIDGET, "Widget", NAMESPACE, n), {"a", "b"}) == member
    )


def test_a_forged_mark_is_taken_off_in_one_write_and_a_sharders_mark_moves_the_parent(tmp_path: Path) -> None:
    fake = FakeKube()
    log: list[tuple[str, str, str]] = []
    stays, moves = belonging_to("a"), belonging_to("b")
    lease(fake, "a")
    lease(fake, "b")
    for name in (stays, moves):
        labels = {sharding.OWNER_LABEL: "a"}  # both "a"'s: assigned before "b" joined
        metadata = {"name": name, "namespace": NAMESPACE, "labels": labels}
        fake.add({"apiVersion": WIDGET, "kind": "Widget", "metadata": metadata, "spec": {}})
    templates = write_kind(
        tmp_path / "templates", {"many.yaml": MANY}, "templates: [{file: many.yaml, collection: true}]\n"
    )
    engine = manager.Engine(Replica(fake, "a", log), templates, manager.Options(run_workers=False, shard="a"))
    engine.shard_members = shards.Members(engine, namespace=NAMESPACE)
    try:
        engine.load()
        (a,) = engine.controllers.values()
        for name in (stays, moves):
            eventually(lambda name=name: a.parents.get(NAMESPACE, name), what="a's cache")
            a.reconcile(Key(NAMESPACE, name))
        eventually(
            lambda: (
                len(engine.children.of(fake.objects[(WIDGET, "Widget", NAMESPACE, stays)]["metadata"]["uid"]))
                == 40
            ),
        )

        # The tenant marks its parent draining towards "b".
        forged = [{"op": "add", "path": "/metadata/labels/shard.stencil.dev~1drain", "value": "b"}]
        fake.patch_json(a.resource, stays, NAMESPACE, forged)
        eventually(lambda: sharding.DRAIN_LABEL in sharding.labels_of(a.parents.get(NAMESPACE, stays)))
        before = len(log)
        worker_of(a).process(Key(NAMESPACE, stays))

        assert log[before:] == [("a", "patch", stays)], "one write: the mark taken off"
        kept = sharding.labels_of(fake.objects[(WIDGET, "Widget", NAMESPACE, stays)])
        assert kept.get(sharding.OWNER_LABEL) == "a" and sharding.DRAIN_LABEL not in kept

        # The sharder marks the parent that belongs to "b": it moves with its children.
        shards.Sharder(engine, namespace=NAMESPACE).tick()
        assert (
            sharding.labels_of(fake.objects[(WIDGET, "Widget", NAMESPACE, moves)]).get(sharding.DRAIN_LABEL)
            == "b"
        )
        eventually(lambda: sharding.DRAIN_LABEL in sharding.labels_of(a.parents.get(NAMESPACE, moves)))
        before = len(log)
        worker_of(a).process(Key(NAMESPACE, moves))
        relabelled = [what for who, verb, what in log[before:] if verb == "patch" and what != moves]
        assert len(relabelled) == 40
        assert sharding.OWNER_LABEL not in sharding.labels_of(
            fake.objects[(WIDGET, "Widget", NAMESPACE, moves)]
        )
    finally:
        engine.stop(grace=0)
