"""Whatever order the sharder's writes, the owners' releases, stale caches, deaths and lost
Leases come in, at most one replica reconciles a parent at any moment, and every parent ends up
owned.

Time passes in ticks of one retry period.  A replica cut off from its Lease (its renewals fail,
its other writes still arrive) reconciles on until its elector steps down, a moment after
``leader.stop_leading_at``; the sharder counts a member live by ``sharding.live_members``, so it
takes the parents of one whose Lease it last saw renewed a lease duration ago.  A replica killed
outright leaves its Lease to expire; one stopped cleanly releases it."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

import jsonpatch
from hypothesis import example, given, settings
from hypothesis import strategies as st

from engine.core.decisions.coordination import sharding
from engine.runtime.serving import leader

REPLICAS = ("a", "b", "c")
LEASE_DURATION, RENEW_DEADLINE, RETRY_PERIOD = 3, 2, 1  # in ticks
leader.check_timings(LEASE_DURATION, RENEW_DEADLINE, RETRY_PERIOD)


@dataclass
class Replica:
    name: str
    alive: bool = True  # its process runs
    renews: bool = True  # its Lease renewals reach the server
    renewed_at: int = 0  # the tick of the last renewal the server stored
    holds_lease: bool = True  # until it releases its Lease on a clean stop
    seen: int = 0  # the index in the parent's history its cache holds; never goes backwards
    reconciling: bool = False


@dataclass
class World:
    history: list[dict[str, Any]] = field(
        default_factory=lambda: [{"metadata": {"name": "p", "resourceVersion": "1", "labels": {}}}]
    )
    replicas: dict[str, Replica] = field(default_factory=lambda: {r: Replica(r) for r in REPLICAS})
    now: int = 0

    @property
    def server(self) -> dict[str, Any]:
        return self.history[-1]

    def write(self, ops: list[dict[str, Any]] | None) -> bool:
        if ops is None:
            return False
        try:
            new = jsonpatch.apply_patch(copy.deepcopy(self.server), ops)
        except jsonpatch.JsonPatchException:
            return False  # a failed test: the write was based on a stale read
        new["metadata"]["resourceVersion"] = str(len(self.history) + 1)
        self.history.append(new)
        return True

    def live(self) -> frozenset[str]:
        # The sharder sees a renewal the moment the server stores it: the earliest it could.
        leases = [
            sharding.SeenLease(r.name, LEASE_DURATION, r.renewed_at)
            for r in self.replicas.values()
            if r.holds_lease
        ]
        return sharding.live_members(leases, self.now)

    def tick(self) -> None:
        self.now += RETRY_PERIOD
        for replica in self.replicas.values():
            if not replica.alive:
                continue
            if replica.renews:
                replica.renewed_at = self.now
            elif self.now > leader.stop_leading_at(replica.renewed_at, RENEW_DEADLINE):
                # Its elector stepped down a moment after the deadline, and the process exits.
                replica.reconciling = False
                replica.alive = False
        self.check()

    def sharder_tick(self, stale_by: int) -> None:
        # The sharder may act on a stale copy: its resourceVersion test makes such a write fail.
        seen = self.history[max(len(self.history) - 1 - stale_by, 0)]
        labels = sharding.labels_of(seen)
        key = sharding.parent_key("g/v1", "K", "ns", "p")
        decision = sharding.decide(
            labels.get(sharding.OWNER_LABEL),
            sharding.DRAIN_LABEL in labels,
            sharding.owner_of(key, self.live()),
            self.live(),
        )
        self.write(sharding.sharder_patch(seen, decision))

    def replica_step(self, name: str, action: int) -> None:
        replica = self.replicas[name]
        if not replica.alive:
            return
        cached = self.history[replica.seen]
        standing = sharding.holding(cached, name)
        if action == 0:
            replica.seen = min(replica.seen + 1, len(self.history) - 1)
        elif action == 1 and standing is sharding.Holding.OWNS and not replica.reconciling:
            replica.reconciling = True
        elif action == 2:
            replica.reconciling = False
        elif action == 3 and standing is sharding.Holding.RELEASE and not replica.reconciling:
            if self.write(sharding.release_patch(self.server, name)):
                replica.seen = len(self.history) - 1  # it reads its own write
        elif action == 4:  # an event arrives and a worker picks the key up at once
            replica.seen = len(self.history) - 1
            self.replica_step(name, 1)
        self.check()

    def befall(self, what: str, name: str) -> None:
        replica = self.replicas[name]
        if what == "cut":  # its Lease requests fail from now on; it runs on
            replica.renews = False
        elif what == "heal":
            replica.renews = True
        elif what in ("kill", "stop"):  # SIGKILL leaves the Lease to expire; a clean stop releases it
            replica.reconciling = False
            replica.alive = False
            replica.holds_lease = replica.holds_lease and what == "kill"
        elif what == "revive":  # a new process under the same name: it takes its Lease at once
            self.replicas[name] = Replica(name, seen=len(self.history) - 1, renewed_at=self.now)

    def check(self) -> None:
        busy = [r.name for r in self.replicas.values() if r.reconciling]
        assert len(busy) <= 1, (busy, self.server)


steps = st.lists(
    st.one_of(
        st.tuples(st.just("sharder"), st.integers(0, 2)),
        st.tuples(st.sampled_from(REPLICAS), st.integers(0, 4)),
        st.tuples(st.sampled_from(("cut", "heal", "kill", "stop", "revive")), st.sampled_from(REPLICAS)),
        st.tuples(st.just("tick"), st.integers(1, LEASE_DURATION + 1)),
    ),
    max_size=50,
)


# "a" is the parent's first choice of the three: it stops, "b" takes over and is busy when "a" returns.
@example(steps=[("stop", "a"), ("sharder", 0), ("b", 4), ("revive", "a"), ("sharder", 0), ("a", 4)])
# "a" owns the parent and is cut off from its Lease; it starts a reconcile while cut off, and "b"
# is given the parent the moment a's Lease expires.
@example(
    steps=[
        ("sharder", 0),
        ("cut", "a"),
        ("tick", 1),
        ("a", 4),
        ("tick", 1),
        ("tick", 1),
        ("sharder", 0),
        ("b", 4),
    ]
)
@settings(max_examples=1000, deadline=None)
@given(steps=steps)
def test_at_most_one_replica_reconciles_and_the_parent_settles_on_its_owner(
    steps: list[tuple[str, Any]],
) -> None:
    world = World()
    for who, what in steps:
        if who == "sharder":
            world.sharder_tick(what)
        elif who == "tick":
            for _ in range(what):
                world.tick()
        elif who in ("cut", "heal", "kill", "stop", "revive"):
            world.befall(who, what)
        else:
            world.replica_step(who, what)
    # Left alone until every Lease not renewed has expired, and with fresh caches, the parent
    # settles on the member it hashes to.
    for _ in range(LEASE_DURATION):
        world.tick()
    for _ in range(4):
        world.sharder_tick(0)
        for replica in world.replicas.values():
            replica.reconciling = False
            replica.seen = len(world.history) - 1
            world.replica_step(replica.name, 3)
    world.sharder_tick(0)
    live = world.live()
    owner = sharding.labels_of(world.server).get(sharding.OWNER_LABEL)
    if live:
        assert owner == sharding.owner_of(sharding.parent_key("g/v1", "K", "ns", "p"), live)
        assert sharding.DRAIN_LABEL not in sharding.labels_of(world.server)
