"""The kinds this engine holds: a claim a kind, written only when the kind changes hands.

What a kind's claim is named, where it lives, what heartbeat it names and who an engine is are
decided in ``engine.core.decisions.coordination.holding``; when a claim may be taken is
``engine.runtime.serving.claims``'s pure ``decide``.  This module is the loop around them:

- **A holder sends nothing at rest.**  It writes a kind's claim once when it takes it (with the
  resourceVersion it read, so of two candidates one gets a 409) and once when it releases it,
  and never reads it again while it holds it.  Its liveness is its engine's heartbeat
  (``heartbeat``, ``namespace/name``), which the caller keeps: the leader Lease, or the engine's
  own Lease without leader election.  The holds are started once that heartbeat is held, and a
  holder loses its kinds only with its heartbeat: the caller then ends the process, as a replica
  that loses its leader Lease does, before a standby can judge the heartbeat dead.
- **A standby reads** the claim and the heartbeat it names every ``retry_period`` (jittered, as
  a candidate of leader election polls), and takes the kind when the claim is released (at
  once) or when the two have not changed for the heartbeat's lease duration on its own clock.
  It writes nothing else, and says who holds the kind: a log line, an Event on the claim and
  ``leader_election_master_status`` (0) for it.  A heartbeat it may not read (403) leaves it
  waiting for a release, said once: judging a holder dead by a claim that is not renewed would
  take kinds from engines that live.

``KindHolds`` follows the kinds the engine serves (``Engine.controllers``, read every
``interval``): a kind that appears is taken or waited for, a kind that goes away has its claim
released.  ``on_held`` runs when a kind is taken.  A claim names a group's kind, not a version
(``holding.claims_of``): a kind whose hub moves to another version is the same claim, kept
through the move and never released, and its new version is served as soon as it appears.
Stopping the holds releases every claim the engine holds; the caller stops its writes before.  A
kind whose claim the engine may not read (403: a kind added as a ConfigMap without the rules of its
Lease) is served without a hold, and the log says so once: serving it is what the engine did before
kinds were held.  A 403 is believed only once it has lasted ``FORBIDDEN_GRACE`` seconds
(``clock``): the rules of a kind dropped in with a ClusterRole of its own reach the API server's
authorizer a moment after the kind reaches the engine, once kube-controller-manager has aggregated
them into a role the engine is bound to.
"""

from __future__ import annotations

import datetime
import logging
import math
import random
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from engine.core.decisions.coordination import holding
from engine.core.model import errors
from engine.core.model.objects import Obj
from engine.runtime.cluster.kube import Kube
from engine.runtime.cluster.lease import LEASE_API_VERSION, Lease
from engine.runtime.reconciling import events
from engine.runtime.serving import claims, leader

if TYPE_CHECKING:
    from engine.runtime.telemetry.observability import Metrics

log = logging.getLogger("stencil.holding")

GVK = tuple[str, str]  # a parent kind: (apiVersion, kind)
_FAILED = (errors.ApiError, errors.Unreachable)
FORBIDDEN_GRACE = 10.0  # seconds a claim may answer 403 before the kind is served without a hold
_JITTER = random.Random()


class Recorder(Protocol):
    def emit(self, obj: Obj, type_: str, reason: str, message: str) -> None: ...


@dataclass(frozen=True)
class Timings:
    """How often a standby reads a kind it waits for, and how long one request may wait."""

    retry_period: float = 2
    timeout: float = 10


@dataclass
class _Kind:
    """One kind's claim as this engine follows it."""

    lease: Lease
    served: frozenset[GVK] = frozenset()  # the parent kinds of the claim served now: a version or two
    held: bool = False
    due: float = 0.0  # when to read it next (``clock``), while not held
    sight: claims.Sight | None = None  # what was read last, and since when (``clock``)
    observed_at: float = 0.0
    reported: str = ""  # the holder last said
    unreadable: set[str] = field(default_factory=set)  # heartbeats this engine may not read (said once)
    forbidden_since: float | None = None  # when the claim first answered 403 in a row (``clock``)


class KindHolds:
    """Takes the kinds in ``kinds()`` as the engine ``identity``, whose heartbeat is the Lease
    ``heartbeat`` (``namespace/name``) lasting ``heartbeat_duration`` seconds."""

    def __init__(
        self,
        kube: Kube,
        kinds: Callable[[], Iterable[GVK]],
        *,
        namespace: str,
        identity: str,
        heartbeat: str,
        heartbeat_duration: float,
        on_held: Callable[[GVK], None],
        timings: Timings = Timings(),
        recorder: Recorder | None = None,
        metrics: Metrics | None = None,
        interval: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if timings.retry_period <= 0:
            raise ValueError("retry_period must be positive")
        self.kube = kube
        self.namespace = namespace
        self.identity = identity
        self.heartbeat = heartbeat
        self._duration = math.ceil(heartbeat_duration)
        self._kinds = kinds
        self._on_held = on_held
        self._timings = timings
        self._recorder = recorder
        self._metrics = metrics
        self._interval = interval
        self._clock = clock
        self._followed: dict[str, _Kind] = {}  # by the claim's name
        self._unheld: set[str] = set()  # claims served without a hold: they may not be read
        self._told: set[GVK] = set()  # the parent kinds ``on_held`` was called for, while served
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._woken = threading.Event()  # a kind was served anew: read the claims now
        self._thread: threading.Thread | None = None

    # -- public ------------------------------------------------------------

    def holds(self, gvk: GVK) -> bool:
        """True while this engine holds the kind (or serves it without a hold)."""
        with self._lock:
            return self._holds(holding.lease_name(*gvk))

    def _holds(self, name: str) -> bool:
        kind = self._followed.get(name)
        return name in self._unheld or (kind is not None and kind.held)

    def held(self) -> dict[GVK, str]:
        """Each kind followed, and its claim's name."""
        with self._lock:
            return {gvk: name for name, k in self._followed.items() for gvk in k.served}

    def wake(self) -> None:
        """A kind is served anew: take or wait for its claim now, not at the next round's turn
        (its workers start only once it is held)."""
        self._woken.set()

    def start(self) -> None:
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="kind-holds", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop following the kinds and release every claim held (its writes stopped first)."""
        self._stop.set()
        self._woken.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()
        with self._lock:
            followed = list(self._followed.values())
        for kind in followed:
            self._release(kind)

    # -- the loop ------------------------------------------------------------

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.sync(set(self._kinds()))
            except Exception:
                log.exception("following the kinds' claims failed")
            self._woken.wait(self._interval)
            self._woken.clear()

    def sync(self, kinds: set[GVK]) -> None:
        """Release the claims no kind served names any more; serve at once a kind whose claim is
        held already (its hub moved to another version); read each claim waited for whose turn it is."""
        claims = holding.claims_of(kinds)
        with self._lock:
            gone = [self._followed.pop(name) for name in list(self._followed) if name not in claims]
            self._unheld &= claims.keys()
            for name in claims.keys() - self._followed.keys() - self._unheld:
                lease = Lease(self.kube, self.namespace, name, {holding.LEASE_LABEL: "true"})
                self._followed[name] = _Kind(lease)
                if self._metrics is not None:
                    self._metrics.leading(name, False)  # a standby reports 0 from the start
            for name, kind in self._followed.items():
                kind.served = claims[name]
            self._told &= kinds
            anew = self._untold(
                [gvk for name, served in claims.items() if self._holds(name) for gvk in served]
            )
            waiting = [(min(k.served), k) for k in self._followed.values() if not k.held]
        for kind in gone:
            self._release(kind)
        for gvk in anew:
            self._on_held(gvk)
        for gvk, kind in waiting:
            if self._stop.is_set():
                return
            if self._clock() >= kind.due:
                self._round(gvk, kind)
                jitter = 1 + _JITTER.random() * leader.JITTER_FACTOR
                kind.due = self._clock() + self._timings.retry_period * jitter

    def _untold(self, served: Iterable[GVK]) -> list[GVK]:
        """The parent kinds of ``served`` not yet told held, now counted as told (under the lock)."""
        anew = sorted(set(served) - self._told)
        self._told.update(anew)
        return anew

    def _round(self, gvk: GVK, kind: _Kind) -> None:
        """Read the kind's claim (and the heartbeat it names), and take it if ``decide`` says so."""
        timeout, lease = self._timings.timeout, kind.lease
        try:
            found = lease.get(timeout)
        except errors.ApiError as exc:
            if exc.status == 403:
                if kind.forbidden_since is None:
                    kind.forbidden_since = self._clock()
                if self._clock() - kind.forbidden_since >= FORBIDDEN_GRACE:
                    self._serve_unheld(gvk, kind, exc)
                return
            log.warning("could not read the claim: %s", exc, extra={"lease": lease.key})
            return
        except errors.Unreachable as exc:
            log.warning("could not read the claim: %s", exc, extra={"lease": lease.key})
            return
        kind.forbidden_since = None
        claim = leader.LeaseRecord.from_spec(found.get("spec") or {}) if found is not None else None
        heartbeat = claims.heartbeat_of((found or {}).get("metadata", {}).get("annotations"))
        beat = None
        if heartbeat and claims.needs_heartbeat(claim, self.identity):
            read, beat = self._beat(kind, heartbeat)
            if not read:
                return  # no decision without the heartbeat
        self._report(gvk, kind, claim.holder if claim is not None else "")
        sight, now = claims.Sight(claim, heartbeat, beat), self._clock()
        if sight != kind.sight:
            kind.sight, kind.observed_at = sight, now
        action = claims.decide(sight, identity=self.identity, now=now, observed_at=kind.observed_at)
        if action is leader.Action.WAIT:
            return
        wall = datetime.datetime.now(datetime.UTC)
        record = claims.claim_for(action, sight, identity=self.identity, wall=wall, duration=self._duration)
        names = {holding.HEARTBEAT_ANNOTATION: self.heartbeat}
        try:
            if found is None:
                lease.create(record.to_spec(), timeout, names)
            else:
                lease.update(found, record.to_spec(), timeout, names)
        except errors.Conflict:
            return  # another engine wrote first: read again next round
        except _FAILED as exc:
            log.warning("could not %s the claim: %s", action.value, exc, extra={"lease": lease.key})
            return
        with self._lock:
            kind.held = True
            anew = self._untold(kind.served)
        if self._metrics is not None:
            self._metrics.leading(lease.name, True)
        self._report(gvk, kind, self.identity)
        for served in anew:
            self._on_held(served)

    def _beat(self, kind: _Kind, heartbeat: str) -> tuple[bool, leader.LeaseRecord | None]:
        """Whether the heartbeat could be read, and its record (None: there is none)."""
        namespace, _, name = heartbeat.partition("/")
        try:
            found = Lease(self.kube, namespace, name).get(self._timings.timeout)
        except errors.ApiError as exc:
            if exc.status == 403 and heartbeat not in kind.unreadable:
                kind.unreadable.add(heartbeat)
                log.warning(
                    "may not read the heartbeat %s that the claim names: waiting for the kind to be "
                    "released (%s)", heartbeat, exc, extra={"lease": kind.lease.key, "heartbeat": heartbeat},
                )  # fmt: skip
            return False, None
        except errors.Unreachable:
            return False, None
        return True, leader.LeaseRecord.from_spec(found.get("spec") or {}) if found is not None else None

    def _serve_unheld(self, gvk: GVK, kind: _Kind, exc: errors.ApiError) -> None:
        lease = kind.lease
        log.warning(
            "kind %s is served without a hold: this engine may not read its Lease %s (%s)",
            gvk[1], lease.key, exc, extra={"kind": gvk[1], "lease": lease.key},
        )  # fmt: skip
        with self._lock:
            self._unheld.add(lease.name)
            self._followed.pop(lease.name, None)
            anew = self._untold(kind.served)
        for served in anew:
            self._on_held(served)

    def _release(self, kind: _Kind) -> None:
        """Leave the kind's claim free, if this engine holds it: a standby takes it at once."""
        if not kind.held:
            return
        with self._lock:
            kind.held = False
        if self._metrics is not None:
            self._metrics.leading(kind.lease.name, False)
        timeout, lease = self._timings.timeout, kind.lease
        try:
            found = lease.get(timeout)
            claim = leader.LeaseRecord.from_spec(found.get("spec") or {}) if found is not None else None
            if found is None or claim is None or claim.holder != self.identity:
                return
            free = claims.released(claim, wall=datetime.datetime.now(datetime.UTC))
            lease.update(found, free.to_spec(), timeout)
        except _FAILED as exc:
            log.warning("could not release the claim: %s", exc, extra={"lease": lease.key})
            return
        log.info("released the claim", extra={"lease": lease.key, "identity": self.identity})

    # -- saying who holds a kind --------------------------------------------------

    def _report(self, gvk: GVK, kind: _Kind, holder: str) -> None:
        """A holder of the kind's claim seen for the first time: say who serves the kind."""
        if not holder or holder == kind.reported:
            return
        kind.reported = holder
        where = {"kind": gvk[1], "lease": kind.lease.key, "holder": holder}
        if holder == self.identity:
            message, reason = holding.holding(gvk[1], self.identity), "Holding"
        else:
            message, reason = holding.standing_by(gvk[1], holder, self.identity), "StandingBy"
        log.info(message, extra=where)
        if self._recorder is not None:
            self._recorder.emit(self._lease_object(kind.lease), events.NORMAL, reason, message)

    def _lease_object(self, lease: Lease) -> Obj:
        """The kind's claim as an Event names it; its uid when it can be read."""
        meta: dict[str, Any] = {"name": lease.name, "namespace": lease.namespace}
        try:
            found = lease.get(self._timings.timeout)
        except _FAILED:
            found = None
        if found is not None:
            meta["uid"] = str(found["metadata"].get("uid", ""))
        obj: Obj = {"apiVersion": LEASE_API_VERSION, "kind": "Lease", "metadata": meta}
        return obj
