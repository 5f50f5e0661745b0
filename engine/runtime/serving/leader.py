"""Leader election on a ``coordination.k8s.io/v1`` Lease, so that of several replicas one reconciles.

The rules are client-go's ``tools/leaderelection``, because every other
controller in a cluster plays by them and a Stencil replica must be a good
citizen of the same Lease:

- the holder renews ``spec.renewTime`` every ``retry_period``; a candidate takes
  the Lease only when its holder is empty (released) or when the record has not
  changed for ``leaseDurationSeconds`` *as measured on the candidate's own
  monotonic clock* since it last saw it change.  The remote ``renewTime`` is
  never compared with the local clock, so clock skew between nodes cannot make
  two replicas lead at once;
- ``acquireTime`` and ``leaseTransitions`` change only when the holder changes;
- a leader that cannot renew for ``renew_deadline`` (shorter than the lease
  duration) stops leading before anyone else may start, and one that sees
  another holder stops at once.  The deadline runs from when its last successful
  renewal was *sent* (a candidate may see the change as soon as the server stores
  it), and no request and no wait runs past it: a renewal that hangs is given up
  at the deadline, not after its own timeout;
- every write is a PUT carrying the ``resourceVersion`` it read, so two
  candidates racing for an expired Lease cannot both win: the loser gets a 409;
- on shutdown the leader first stops its work (``on_stopped_leading``), then
  releases the Lease (empty holder, ``leaseDurationSeconds: 1``) so that a
  standby takes over within one retry period instead of a whole lease duration.

The decision itself is the pure function ``decide`` and the records it writes
come from ``record_for`` and ``released``; ``LeaderElector`` is only the loop
around them, and its requests are ``engine.runtime.cluster.lease``'s, which keeps the rules
testable without a cluster.
"""

from __future__ import annotations

import datetime
import enum
import logging
import math
import random
import socket
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from engine.core.model import errors
from engine.runtime.cluster.kube import Kube
from engine.runtime.cluster.lease import LEASE_API_VERSION as LEASE_API_VERSION  # where the sharder reads it
from engine.runtime.cluster.lease import Lease

log = logging.getLogger("stencil.leader")

# A request that failed: answered with an error, or not answered at all (refused, timed out).
_FAILED = (errors.ApiError, errors.Unreachable)

DEFAULT_LEASE_NAME = "stencil-leader"
# client-go's JitterFactor: a candidate waits between 1 and 2.2 retry periods, so
# that replicas started together do not poll in lock step.
JITTER_FACTOR = 1.2
_JITTER = random.Random()  # its own generator: the process's global one is the embedder's
_MICRO_TIME = "%Y-%m-%dT%H:%M:%S.%fZ"  # metav1.MicroTime: exactly six fractional digits


def default_identity() -> str:
    """``<hostname>_<uuid>`` as controller-runtime builds it: unique even across restarts of a pod."""
    return f"{socket.gethostname()}_{uuid.uuid4()}"


def format_micro_time(moment: datetime.datetime) -> str:
    return moment.astimezone(datetime.UTC).strftime(_MICRO_TIME)


def parse_time(text: str | None) -> datetime.datetime | None:
    if not text:
        return None
    return datetime.datetime.fromisoformat(text)


@dataclass(frozen=True)
class LeaseRecord:
    """The fields of a Lease's spec that leader election reads and writes."""

    holder: str = ""
    duration: int = 0  # leaseDurationSeconds
    acquire_time: datetime.datetime | None = None
    renew_time: datetime.datetime | None = None
    transitions: int = 0

    @classmethod
    def from_spec(cls, spec: dict[str, Any]) -> LeaseRecord:
        return cls(
            holder=spec.get("holderIdentity") or "",
            duration=int(spec.get("leaseDurationSeconds") or 0),
            acquire_time=parse_time(spec.get("acquireTime")),
            renew_time=parse_time(spec.get("renewTime")),
            transitions=int(spec.get("leaseTransitions") or 0),
        )

    def to_spec(self) -> dict[str, Any]:
        spec: dict[str, Any] = {
            "holderIdentity": self.holder,
            "leaseDurationSeconds": self.duration,
            "leaseTransitions": self.transitions,
        }
        if self.acquire_time is not None:
            spec["acquireTime"] = format_micro_time(self.acquire_time)
        if self.renew_time is not None:
            spec["renewTime"] = format_micro_time(self.renew_time)
        return spec


class Action(enum.Enum):
    CREATE = "create"  # there is no Lease yet
    ACQUIRE = "acquire"  # the Lease is free or expired: take it
    RENEW = "renew"  # we hold it: renew it
    WAIT = "wait"  # someone else holds it and it has not expired


def decide(current: LeaseRecord | None, *, identity: str, now: float, observed_at: float) -> Action:
    """What a candidate named ``identity`` should do about the Lease it just read.

    ``now`` and ``observed_at`` are readings of the candidate's monotonic clock:
    ``observed_at`` is when it first saw ``current`` in its present form.  The
    Lease has expired when it has not changed for its own ``leaseDurationSeconds``.
    """
    if current is None:
        return Action.CREATE
    if current.holder == identity:
        return Action.RENEW
    if current.holder and now < observed_at + current.duration:
        return Action.WAIT
    return Action.ACQUIRE


def record_for(
    action: Action,
    current: LeaseRecord | None,
    *,
    identity: str,
    wall: datetime.datetime,
    lease_duration: int,
) -> LeaseRecord:
    """The record to write for ``action`` (not ``WAIT``), at wall-clock time ``wall``."""
    if action is Action.WAIT:
        raise ValueError("a candidate that waits writes nothing")
    if action is Action.RENEW and current is not None:
        return LeaseRecord(identity, lease_duration, current.acquire_time or wall, wall, current.transitions)
    transitions = current.transitions + 1 if current is not None else 0
    return LeaseRecord(identity, lease_duration, wall, wall, transitions)


def released(current: LeaseRecord, *, wall: datetime.datetime) -> LeaseRecord:
    """The record a leader leaves behind on a clean shutdown: no holder, expiring in a second.

    The one-second duration matters for candidates of older client-go versions
    that do not treat an empty holder as free; they still take over after a second.
    """
    return LeaseRecord("", 1, wall, wall, current.transitions)


def stop_leading_at(renewed_at: float, renew_deadline: float) -> float:
    """The moment a leader whose last successful renewal was sent at ``renewed_at`` stops leading,
    unless it renews before: ``renew_deadline`` later, which ``check_timings`` keeps shorter than
    the ``lease_duration`` after which a candidate that saw that renewal may take the Lease."""
    return renewed_at + renew_deadline


def check_timings(lease_duration: float, renew_deadline: float, retry_period: float) -> None:
    """Refuse timings under which two replicas could lead at once, as client-go does.

    A leader gives up after ``renew_deadline`` without a renewal; a standby takes
    over after ``lease_duration`` without a change, so the first must be shorter.
    A leader must get at least one jittered retry in before its deadline.
    """
    if retry_period <= 0:
        raise ValueError("retry_period must be positive")
    if lease_duration <= renew_deadline:
        raise ValueError(
            f"lease_duration ({lease_duration:g}s) must be greater than renew_deadline ({renew_deadline:g}s)"
        )
    if renew_deadline <= JITTER_FACTOR * retry_period:
        raise ValueError(
            f"renew_deadline ({renew_deadline:g}s) must be greater than {JITTER_FACTOR} * "
            f"retry_period ({retry_period:g}s)"
        )


class _Outcome(enum.Enum):
    HELD = "held"  # we hold the Lease now
    OTHER = "other"  # someone else holds it, validly
    FAILED = "failed"  # the request failed or lost a race; try again


class LeaderElector:
    """Campaigns for a Lease and calls back when leadership starts and stops.

    ``on_started_leading`` runs on the elector's thread and must return promptly
    (start the workers, do not run them): renewals wait for it.
    ``on_stopped_leading`` must stop every write before it returns: after it the
    Lease is released (on ``stop``) or left to expire (when renewing failed),
    and another replica may start leading.  After losing the Lease the elector
    campaigns again until ``stop`` is called.  ``on_new_leader``, as client-go's
    ``OnNewLeader``, is told each holder the elector sees that is not the one it saw
    last (itself included), on the elector's thread.
    """

    def __init__(
        self,
        kube: Kube,
        *,
        namespace: str,
        name: str = DEFAULT_LEASE_NAME,
        identity: str,
        lease_duration: float = 15,
        renew_deadline: float = 10,
        retry_period: float = 2,
        on_started_leading: Callable[[], None],
        on_stopped_leading: Callable[[], None],
        clock: Callable[[], float] = time.monotonic,
        wait: Callable[[threading.Event, float], bool] = threading.Event.wait,
        labels: Mapping[str, str] | None = None,
        on_new_leader: Callable[[str], None] | None = None,
    ) -> None:
        if not identity:
            raise ValueError("leader election needs a non-empty identity")
        check_timings(lease_duration, renew_deadline, retry_period)
        self.kube = kube
        self.namespace = namespace
        self.name = name
        self._lease = Lease(kube, namespace, name, labels)
        self.identity = identity
        self.lease_duration = lease_duration
        self.renew_deadline = renew_deadline
        self.retry_period = retry_period
        self._on_started = on_started_leading
        self._on_stopped = on_stopped_leading
        self._on_new_leader = on_new_leader
        self._reported = ""  # the holder last told to ``on_new_leader``
        self._clock = clock
        self._wait = wait  # waits on the event for so many seconds of ``clock``; True once it is set
        self._observed: LeaseRecord | None = None
        self._observed_at = 0.0
        self._renewed_at = 0.0  # when our last successful write of the Lease was sent (``clock``)
        self._leading = threading.Event()
        self._stopping = threading.Event()
        self._release_on_stop = True
        self._thread: threading.Thread | None = None
        self._written: dict[str, Any] | None = None  # the Lease as our last successful write left it

    # -- public ------------------------------------------------------------

    @property
    def is_leader(self) -> bool:
        return self._leading.is_set()

    def start(self) -> threading.Thread:
        """Run the election on a daemon thread."""
        self._thread = threading.Thread(target=self.run, name=f"leader-{self.name}", daemon=True)
        self._thread.start()
        return self._thread

    def stop(self, release: bool = True, timeout: float | None = None) -> None:
        """Stop campaigning; if leading, stop the work and then (``release``) free the Lease.

        Called from another thread than ``run``'s, it waits until that is done.
        ``release=False`` leaves the Lease to expire, as a crashed process would.
        """
        self._release_on_stop = release
        self._stopping.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)

    def run(self) -> None:
        """Campaign, lead and renew, campaign again after losing; returns after ``stop``."""
        try:
            while not self._stopping.is_set():
                if not self._acquire():
                    break
                self._lead()
        finally:
            if self._leading.is_set():
                self._step_down("shutting down")
                if self._release_on_stop:
                    self._release()

    # -- the loop ------------------------------------------------------------

    def _acquire(self) -> bool:
        """Try until the Lease is ours (True) or ``stop`` was called (False)."""
        log.info("waiting to lead", extra={"lease": self._lease.key, "identity": self.identity})
        while not self._stopping.is_set():
            if self._try_acquire_or_renew(self.renew_deadline) is _Outcome.HELD:
                return True
            jitter = 1 + _JITTER.random() * JITTER_FACTOR
            if self._wait(self._stopping, self.retry_period * jitter):
                break
        return False

    def _lead(self) -> None:
        """Lead and renew until renewing fails, another holder appears, or ``stop``."""
        self._leading.set()
        log.info("started leading", extra={"lease": self._lease.key, "identity": self.identity})
        try:
            self._on_started()
        except Exception:
            log.exception("on_started_leading failed; giving the Lease up")
            self._step_down("on_started_leading failed")
            self._release()
            self._wait(self._stopping, self.retry_period)
            return
        while True:
            stop_at = stop_leading_at(self._renewed_at, self.renew_deadline)
            if self._clock() >= stop_at:
                self._step_down(f"could not renew the Lease for {self.renew_deadline:g}s")
                return
            if self._wait(self._stopping, min(self.retry_period, stop_at - self._clock())):
                return  # run() steps down and releases
            if self._clock() >= stop_at:
                continue
            outcome = self._try_acquire_or_renew(stop_at - self._clock())
            if self._stopping.is_set():
                return
            if outcome is _Outcome.OTHER:
                self._step_down("another replica holds the Lease")
                return

    def _step_down(self, why: str) -> None:
        self._leading.clear()
        self._written = None
        log.info("stopped leading: %s", why, extra={"lease": self._lease.key, "identity": self.identity})
        try:
            self._on_stopped()
        except Exception:
            log.exception("on_stopped_leading failed")

    # -- one round trip --------------------------------------------------------

    def _try_acquire_or_renew(self, timeout: float) -> _Outcome:
        """One round; no request in it waits longer than ``timeout``."""
        sent = self._clock()
        # A leader renews straight from the object its last write returned, as
        # client-go does: one request per renewal.  A 409 means the Lease changed
        # under it, and the full read-decide-write round below settles by whom.
        if self._leading.is_set() and self._written is not None and self._observed is not None:
            renewal = record_for(
                Action.RENEW,
                self._observed,
                identity=self.identity,
                wall=datetime.datetime.now(datetime.UTC),
                lease_duration=math.ceil(self.lease_duration),
            )
            try:
                self._written = self._lease.update(self._written, renewal.to_spec(), timeout)
            except errors.Conflict:
                self._written = None
            except _FAILED as exc:
                log.warning("could not renew the Lease: %s", exc, extra={"lease": self._lease.key})
                return _Outcome.FAILED
            else:
                self._observed = renewal
                self._observed_at = self._clock()
                self._renewed_at = sent
                return _Outcome.HELD
        try:
            lease = self._lease.get(timeout)
        except _FAILED as exc:
            log.warning("could not read the Lease: %s", exc, extra={"lease": self._lease.key})
            return _Outcome.FAILED
        now = self._clock()
        current = LeaseRecord.from_spec(lease.get("spec") or {}) if lease is not None else None
        self._report(current.holder if current is not None else "")
        if current != self._observed:
            self._observed = current
            self._observed_at = now
        action = decide(current, identity=self.identity, now=now, observed_at=self._observed_at)
        if action is Action.WAIT:
            return _Outcome.OTHER
        desired = record_for(
            action,
            current,
            identity=self.identity,
            wall=datetime.datetime.now(datetime.UTC),
            lease_duration=math.ceil(self.lease_duration),
        )
        try:
            remaining = max(timeout - (self._clock() - sent), 0.0)
            if lease is None:
                self._written = self._lease.create(desired.to_spec(), remaining)
            else:
                self._written = self._lease.update(lease, desired.to_spec(), remaining)
        except errors.Conflict:
            return _Outcome.FAILED  # another candidate wrote first; read again next round
        except _FAILED as exc:
            log.warning("could not %s the Lease: %s", action.value, exc, extra={"lease": self._lease.key})
            return _Outcome.FAILED
        self._observed = desired
        self._observed_at = self._clock()
        self._renewed_at = sent
        self._report(self.identity)
        return _Outcome.HELD

    def _report(self, holder: str) -> None:
        """Tell ``on_new_leader`` of a holder other than the one told last (none is not told)."""
        if not holder or holder == self._reported:
            return
        self._reported = holder
        if self._on_new_leader is not None:
            try:
                self._on_new_leader(holder)
            except Exception:
                log.exception("on_new_leader failed")

    def _release(self) -> None:
        try:
            lease = self._lease.get(self.renew_deadline)
            if lease is None:
                return
            current = LeaseRecord.from_spec(lease.get("spec") or {})
            if current.holder != self.identity:
                return
            record = released(current, wall=datetime.datetime.now(datetime.UTC))
            self._lease.update(lease, record.to_spec(), self.renew_deadline)
        except _FAILED as exc:
            log.warning("could not release the Lease: %s", exc, extra={"lease": self._lease.key})
            return
        log.info("released the Lease", extra={"lease": self._lease.key, "identity": self.identity})
