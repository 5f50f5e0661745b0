"""One kind's rollout: which revision each parent is rendered from, and who moves next.

The controller asks ``Rollout.choose`` which revision of the kind a parent is rendered
from: the one it records (``status.kindRevision``), so that a parent the rollout has not
reached keeps its children exactly as they are, even when its own spec changes; the target
once the rollout moves it.  A kind that declares no ``rollout:`` moves every parent at
once, as before: each is rendered from the target at its next reconcile.

``Rollout.tick`` runs every second on the engine's reload thread while a rollout is under
way (less often when looking at every parent would take more than ``LOOK_SHARE`` of that
thread): it reads where every cached parent stands, lets ``engine.core.decisions.coordination.rollout.step``
decide who moves, queues them, pauses the rollout when the failures pass the kind's budget
(spec.paused on the KindRollout, an Event in counts, the log), and writes the KindRollout's
status when it changed.  Sharded, each replica writes its own share of the counts in
``status.shares[<identity>]`` as a field manager of its own, and adds up the live replicas'
shares (``sharding.Members``) into the totals it writes and the budget it checks: a replica
whose shard Lease is gone drops out of the counts, and its entry is removed.

A parent moves by recording its move in its status before its children change
(``moved``), so an engine killed at any point moves no parent twice and skips none.
"""

from __future__ import annotations

import datetime
import logging
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine.core.decisions import conditions
from engine.core.decisions.coordination import rollout
from engine.core.model import kinds, rollouts
from engine.core.model.objects import Key, Obj, key_of
from engine.runtime.reconciling import events
from engine.runtime.reconciling.revisions import RESUMED_ANNOTATION, Lineage

if TYPE_CHECKING:
    from engine.runtime.cluster.informers import Across
    from engine.runtime.reconciling.host import Host
    from engine.runtime.reconciling.requeuing import Wakes

log = logging.getLogger("stencil.controller")


@dataclass(frozen=True)
class Choice:
    """The revision a parent is rendered from now, and whether this reconcile records its move."""

    number: int | None = None  # None: the kind has no revisions (rendered from the folder as loaded)
    kind: kinds.Kind | None = None
    move: bool = False  # record the move to ``number`` first, then render


STANDING_INDEX = "rollout-standing"  # the parents' index of where each stands (rollout.standing_value)
FROM_FOLDER = Choice()  # a kind without revisions: rendered from the folder as loaded
AT_ONCE = rollouts.Policy(
    "100%", math.inf
)  # a kind without rollout: every parent moves at its next reconcile
# The share of the reload thread's time a rollout's looks at every parent may take: after a tick
# that took t seconds of CPU, the next looks no sooner than t / LOOK_SHARE later.  A backlog
# reconciled for the first time keeps a kind's rollout unsettled, looking, for as long as it lasts,
# and a look at 10,000 parents took 22 ms of CPU while the workers ran: one every 4.4 s.  At a few
# hundred parents a look takes under a millisecond and the rollout still looks every second.
LOOK_SHARE = 0.005


class Rollout:
    """The revisions of one kind and the rollout between them."""

    def __init__(
        self,
        host: Host,
        name: str,
        parents: Across,
        wakes: Wakes,
        *,
        clock: Callable[[], float] = time.monotonic,
        cpu_clock: Callable[[], float] = time.thread_time,
        shard: str | None = None,
    ) -> None:
        self.host = host
        self.name = name
        self.parents = parents
        self.wakes = wakes
        self.lineage: Lineage | None = None
        self.target: int | None = None  # the revision parents move to
        self.current: int | None = None  # the revision every parent was on when the last rollout ended
        self.paused = False
        self.resumed = ""
        self._admitted: set[Key] = set()  # told to move; not yet recorded
        self._settled = True  # every parent is on the target: nothing for ticks to do
        self._said: dict[str, Any] | None = None  # the KindRollout status last written
        self._identity = shard  # sharded: this replica's name among the shards (its share's key)
        self._live: frozenset[str] = frozenset()  # the live replicas at the last tick
        self._object: Obj | None = None
        self._invalid: str | None = None  # why the kind's folder no longer loads, if it does not
        self._read: dict[tuple[str, str], tuple[str | None, rollout.Standing]] = {}  # by _standings
        self._clock, self._cpu_clock = clock, cpu_clock
        self._next_look = -math.inf  # when a tick may look at every parent again (LOOK_SHARE)
        self._lock = threading.Lock()
        parents.add_index(STANDING_INDEX, rollout.standing_value)

    # -- what the engine tells it -------------------------------------------------

    def update(self, lineage: Lineage, obj: Obj | None) -> None:
        """The kind's revisions, as the folder just loaded left them, and its KindRollout."""
        with self._lock:
            self.lineage, self._invalid = lineage, None
            spec = (obj or {}).get("spec") or {}
            if lineage.superseded_pin and spec.get("revision") is not None:
                log.info("kind %s: revision %d supersedes the pinned one", self.name, lineage.latest)
                self.host.revisions.patch_spec(self.name, {"revision": None})
                spec = {**spec, "revision": None}
            said = (obj or {}).get("status") or {}
            current = said.get("currentRevision")
            self.current = current if current in lineage.kinds else None
            self._said = dict(said) if said else None
            self._follow(obj, spec)

    def observe(self, obj: Obj) -> None:
        """A status write of the KindRollout (another replica's share, when sharded)."""
        with self._lock:
            if self._identity is None:
                return
            before = ((self._object or {}).get("status") or {}).get("shares")
            self._object = obj
            if (obj.get("status") or {}).get("shares") != before:
                self._settled = False  # the totals and the budget add the others' shares

    def counted_anew(self) -> None:
        """A parent came into the cache or left it (created, deleted, or moved between shards):
        the next tick looks again, so that the counts (a replica's share) follow."""
        self._settled = False

    def spec_changed(self, obj: Obj) -> None:
        """Someone changed the KindRollout (``stencil rollout resume|undo``, kubectl)."""
        with self._lock:
            if self.lineage is not None:
                self._follow(obj, obj.get("spec") or {})

    def _follow(self, obj: Obj | None, spec: dict[str, Any]) -> None:
        assert self.lineage is not None
        self._object = obj
        pinned = spec.get("revision")
        target = pinned if pinned in self.lineage.kinds else self.lineage.latest
        if self.current is None:
            self.current = target  # the first revision this kind has: where every parent starts
        self.paused = bool(spec.get("paused"))
        self.resumed = str(
            ((obj or {}).get("metadata") or {}).get("annotations", {}).get(RESUMED_ANNOTATION, "")
        )
        if target != self.target:
            self.target = target
            self._admitted.clear()
        self._settled = False
        self._next_look = -math.inf  # what the operator changed is looked at the next tick

    @property
    def policy(self) -> rollouts.Policy | None:
        if self.lineage is None or self.target is None:
            return None
        return self.lineage.kinds[self.target].rollout

    def hold(self, broken: kinds.BrokenKind) -> bool:
        """The kind's folder no longer loads: with a rollout, every parent stays on the revision it
        is on and the KindRollout says why (True); without one, False (the parents say it)."""
        with self._lock:
            if self.policy is None:
                return False
            now = conditions.timestamp(self.host.options.clock.wall())
            self._invalid = str(broken.error)  # said until the folder loads again
            said = rollout.invalid(self._said, self._invalid, now)
        log.error("kind %s: its folder does not load; its parents stay where they are", self.name)
        self.host.revisions.write_status(self.name, said)
        self._said = said
        if self._object is not None:
            self.host.recorder.emit(self._object, events.WARNING, "InvalidKind", str(broken.error))
        return True

    def in_use(self) -> set[int]:
        """The revisions someone needs: those the parents record, and those the rollout moves between."""
        with self._lock:
            moving = {n for n in (self.current, self.target, self.lineage and self.lineage.latest) if n}
        return moving | {s.revision for s in self._standings() if s.revision is not None}

    def _standings(self) -> list[rollout.Standing]:
        """Where every cached parent stands, read from the cache's index: no parent is decoded (a
        parent of 1.4 MB takes 30 MiB decoded, and a rollout looks at every one each second).  A
        standing is read again only when its index value changed since the last look: while a
        backlog of parents is first reconciled, a tick runs every second over all of them."""
        indexed = self.parents.indexed(STANDING_INDEX)
        known, read = self._read, {}
        for namespace, name, _ in self.parents.versions():
            values = indexed.get((namespace, name))
            value = values[0] if values else None
            before = known.get((namespace, name))
            if before is not None and before[0] == value:
                read[(namespace, name)] = before
                continue
            key = Key(namespace, name)
            found = rollout.standing_of(key, value) if value is not None else rollout.Standing(key, None)
            read[(namespace, name)] = (value, found)
        self._read = read  # parents no longer cached are forgotten
        return [found for _, found in read.values()]

    # -- what the controller asks --------------------------------------------------

    def choose(self, parent: Obj) -> Choice:
        """The revision ``parent`` is rendered from now (see the module docstring)."""
        with self._lock:
            lineage, target = self.lineage, self.target
            if lineage is None or target is None:
                return FROM_FOLDER
            recorded = rollout.revision_of(parent)
            key = key_of(parent)
            if recorded == target or self.policy is None:
                self._admitted.discard(key)
                return Choice(target, lineage.kinds[target])
            if key in self._admitted:
                return Choice(target, lineage.kinds[target], move=True)
            number = recorded if recorded in lineage.kinds else self.current
            assert number is not None
            return Choice(number, lineage.kinds[number])

    # -- the waves ------------------------------------------------------------------

    def tick(
        self, now: datetime.datetime, members: Callable[[], frozenset[str]] | None = None
    ) -> rollout.Step | None:
        """Decide who moves now (see the module docstring); the step taken, or None if idle, if
        the last look was too recent for ``LOOK_SHARE``, or if the parents' cache is still being
        filled."""
        with self._lock:
            target = self.target
            others = self._others(members)
            if self._settled or target is None or self._clock() < self._next_look:
                return None
            if not self.parents.has_synced:
                # A cache still being filled (an engine just started, its parents listed one at a
                # time) holds only some parents: all of them on the target would end the rollout.
                return None
            spent = self._cpu_clock()
            standings = self._standings()
            admitted = frozenset(self._admitted)
            step = rollout.step(
                self.policy or AT_ONCE,
                target,
                standings,
                now,
                paused=self.paused,
                resumed=self.resumed,
                admitted=admitted,
                others=others,
            )
            self._admitted.update(step.admit)
            if step.failure is not None and not self.paused and self.policy is not None:
                self._pause(step.failure)
            if step.complete:
                self.current = target
            # Nothing left to do until something changes: every parent Ready at the target; paused
            # (a spec change wakes it); without a rollout, every parent on the target (each says
            # whether it is Ready itself).
            arrived = all(s.revision == target for s in standings)
            self._settled = step.complete or self.paused or (self.policy is None and arrived)
            said = rollout.summary(step, self.current, self.paused, self._said, conditions.timestamp(now))
            if self._identity is not None:
                share = rollout.share_status(step.share, "")
                old = ((self._said or {}).get("shares") or {}).get(self._identity) or {}
                share["at"] = old.get("at") if {**old, "at": ""} == share else conditions.timestamp(now)
                said["shares"] = {self._identity: share}
            if self._invalid is not None:
                said = rollout.invalid(said, self._invalid, conditions.timestamp(now))
            self._next_look = self._clock() + (self._cpu_clock() - spent) / LOOK_SHARE
        for key in step.admit:
            self.wakes.add(key)
        if said != self._said:
            self._say(said, step)
        return step

    def _others(self, members: Callable[[], frozenset[str]] | None) -> list[rollout.Share]:
        """The other live replicas' shares, from the KindRollout as last seen; a change of the live
        replicas wakes a settled rollout (a gone replica's share drops out of the totals)."""
        if self._identity is None or members is None:
            return []
        live = members() | {self._identity}
        if live != self._live:
            self._live, self._settled = live, False
        return rollout.shares_of((self._object or {}).get("status") or {}, live, self._identity)

    def _pause(self, failure: rollout.Failure) -> None:
        self.paused = True
        log.warning("kind %s: rollout paused: %s", self.name, failure, extra={"kind": self.name})
        self.host.revisions.patch_spec(self.name, {"paused": True})
        if self._object is not None:
            self.host.recorder.emit(self._object, events.WARNING, "RolloutPaused", str(failure))

    def _say(self, said: dict[str, Any], step: rollout.Step) -> None:
        if self._identity is None:
            self.host.revisions.write_status(self.name, said)
        else:
            self.host.revisions.write_status(self.name, said, manager=f"stencil-rollout-{self._identity}")
        self._said = said
        if self._identity is not None:
            shares = ((self._object or {}).get("status") or {}).get("shares") or {}
            gone = [name for name in shares if name not in self._live]
            if gone:  # the shares of replicas no longer live, counted by nobody
                self.host.revisions.drop_shares(self.name, gone)
        metrics = self.host.options.metrics
        if metrics:
            metrics.rollout(self.name, step.updated, len(step.moving), step.total, paused=self.paused)
