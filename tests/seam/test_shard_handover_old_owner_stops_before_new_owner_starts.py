"""A parent moving between replicas is never reconciled by both: the old owner finishes the
reconcile under way, then lets go; only then does the sharder give it to the new owner.

The ordering is forced: the sharder's pass runs while the old owner's reconcile is between a
child's write and its answer.  Each replica writes through its own view of the fake, so every
write is known by who sent it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.core.decisions.coordination import sharding
from engine.core.model.objects import Key
from engine.runtime.serving import manager
from engine.runtime.serving import sharding as shards
from tests._deadlines import eventually
from tests.integration._widgets import VALUE_CONFIGMAP, write_kind
from tests.seam._fake import FakeKube
from tests.seam._harness import worker_of

NAMESPACE = "ns"
WIDGET = "tests.stencil.dev/v1"


class Replica:
    """One replica's view of the shared fake: the same server, its writes signed with its name."""

    def __init__(self, fake: FakeKube, name: str, log: list[tuple[str, str, str]]) -> None:
        self._fake, self._name, self._log = fake, name, log

    def __getattr__(self, verb: str) -> Any:
        return getattr(self._fake, verb)

    def apply(self, obj: dict[str, Any], **kw: Any) -> dict[str, Any]:
        self._log.append((self._name, "apply", obj["metadata"]["name"]))
        return self._fake.apply(obj, **kw)

    def patch_json(self, res: Any, name: str, namespace: str | None, ops: Any) -> dict[str, Any]:
        self._log.append((self._name, "patch", name))
        return self._fake.patch_json(res, name, namespace, ops)


def lease(fake: FakeKube, identity: str) -> None:
    fake.add(
        {
            "apiVersion": "coordination.k8s.io/v1",
            "kind": "Lease",
            "metadata": {
                "name": sharding.lease_name(identity),
                "namespace": NAMESPACE,
                "labels": {sharding.LEASE_LABEL: "true"},
            },
            "spec": {"holderIdentity": identity, "leaseDurationSeconds": 15},
        }
    )


def test_the_new_owner_writes_only_after_the_old_owner_released(tmp_path: Path) -> None:
    fake = FakeKube()
    log: list[tuple[str, str, str]] = []
    # A parent that "b" wins once it joins "a" (a choice of input, not a computed expectation).
    name = next(
        n
        for n in (f"w{i}" for i in range(100))
        if sharding.owner_of(sharding.parent_key(WIDGET, "Widget", NAMESPACE, n), {"a", "b"}) == "b"
    )
    lease(fake, "a")
    fake.add(
        {
            "apiVersion": WIDGET,
            "kind": "Widget",
            "metadata": {"name": name, "namespace": NAMESPACE},
            "spec": {"value": "1"},
        }
    )
    templates = write_kind(tmp_path / "templates", {"children.yaml": VALUE_CONFIGMAP})
    engines = {
        who: manager.Engine(Replica(fake, who, log), templates, manager.Options(run_workers=False, shard=who))  # type: ignore[arg-type]
        for who in ("a", "b")
    }
    try:
        for engine in engines.values():
            engine.load()
        (a,), (b,) = (list(engines[who].controllers.values()) for who in ("a", "b"))
        sharder = shards.Sharder(engines["a"], namespace=NAMESPACE)
        key = Key(NAMESPACE, name)
        eventually(
            lambda: (
                sharder.tick()
                or sharding.labels_of(fake.objects[(WIDGET, "Widget", NAMESPACE, name)]).get(
                    sharding.OWNER_LABEL
                )
            ),
            what="the first assignment",
        )
        eventually(lambda: a.parents.get(NAMESPACE, name), what="a's cache holding the parent")
        a.reconcile(key)
        assert (("a", "apply", f"{name}-data")) in log

        # "b" joins, and the spec changes: "a" is writing the child when the sharder looks.
        lease(fake, "b")
        fake.update_spec(WIDGET, "Widget", NAMESPACE, name, value="2")
        eventually(
            lambda: a.parents.get(NAMESPACE, name)["spec"]["value"] == "2",
            what="the new spec in a's cache",
        )  # type: ignore[index]
        during: list[str | None] = []

        def sharder_runs_mid_reconcile(verb: str, written: dict[str, Any]) -> None:
            if verb == "APPLY" and written["kind"] == "ConfigMap":
                fake.before_response = None
                eventually(lambda: sharder.members() == {"a", "b"}, what="b's Lease seen")
                sharder.tick()
                labels = sharding.labels_of(fake.objects[(WIDGET, "Widget", NAMESPACE, name)])
                during.extend([labels.get(sharding.OWNER_LABEL), labels.get(sharding.DRAIN_LABEL)])

        fake.before_response = sharder_runs_mid_reconcile
        a.reconcile(key)
        assert during == ["a", "b"], "mid-reconcile, the parent is only marked draining towards b"
        sharder.tick()
        assert b.parents.get(NAMESPACE, name) is None
        assert not [entry for entry in log if entry[0] == "b"]

        # "a" takes the key again (the drain label woke it) and lets go instead of reconciling:
        # it relabels the child for "b", then releases the parent.
        released_at = len(log)
        while (queued := worker_of(a).queue.get(timeout=0.5)) is not None:
            worker_of(a).process(queued)
        assert log[released_at:] == [("a", "patch", f"{name}-data"), ("a", "patch", name)]
        sharder.tick()
        eventually(lambda: b.parents.get(NAMESPACE, name), what="b's cache holding the parent")
        assert (
            a.parents.get(NAMESPACE, name) is None
            or sharding.holding(a.parents.get(NAMESPACE, name), "a") is not sharding.Holding.OWNS
        )  # type: ignore[arg-type]
        fake.update_spec(WIDGET, "Widget", NAMESPACE, name, value="3")
        eventually(
            lambda: b.parents.get(NAMESPACE, name)["spec"]["value"] == "3",
            what="the new spec in b's cache",
        )  # type: ignore[index]
        eventually(lambda: b.handover.arriving(b.parents.get(NAMESPACE, name), b.kind) is None)  # type: ignore[arg-type]
        b.reconcile(key)
        a.reconcile(key)
        child_writes = [who for who, verb, what in log if verb == "apply" and what == f"{name}-data"]
        first_b = child_writes.index("b")
        assert set(child_writes[:first_b]) == {"a"} and set(child_writes[first_b:]) == {"b"}
        assert fake.objects[("v1", "ConfigMap", NAMESPACE, f"{name}-data")]["data"] == {"value": "3"}
    finally:
        for engine in engines.values():
            engine.stop(grace=0)
