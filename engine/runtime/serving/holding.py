"""The kinds this engine holds: one Lease a kind, campaigned for by the replica that leads.

What a kind's Lease is named, where it lives and who an engine is are decided in
``engine.core.decisions.holding``; the campaign is a ``leader.LeaderElector`` per kind, with the
engine's identity as the candidate, so a kind changes hands by exactly the rules leader election
follows (a holder that cannot renew stops before the Lease can expire; a clean shutdown releases
it and a standby takes over within a retry period; a crashed holder's kind moves after one lease
duration).  Holding a kind costs one renewal a retry period; a standby only reads.

``KindHolds`` follows the kinds the engine serves (``Engine.controllers``, read every
``interval``): a kind that appears gets its elector, a kind that goes away has its Lease
released.  ``on_held`` runs when a kind is taken; ``on_lost`` when one is lost while the holds
run (another engine holds it now: the caller must stop the kind's writes at once, as a replica
that loses its leader Lease does).  Stopping the holds releases every Lease; the caller stops its
writes before.  A kind whose Lease the engine may not read (403: a kind added as a ConfigMap
after its RBAC was derived) is served without a hold, and the log says so once: serving it is
what the engine did before kinds were held.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from engine.core.decisions import holding
from engine.core.model import errors
from engine.runtime.cluster.kube import Kube, Obj
from engine.runtime.cluster.lease import LEASE_API_VERSION, Lease
from engine.runtime.reconciling import events
from engine.runtime.serving import leader

if TYPE_CHECKING:
    from engine.runtime.telemetry.observability import Metrics

log = logging.getLogger("stencil.holding")

GVK = tuple[str, str]  # a parent kind: (apiVersion, kind)


class Recorder(Protocol):
    def emit(self, obj: Obj, type_: str, reason: str, message: str) -> None: ...


@dataclass(frozen=True)
class Timings:
    """The kinds' Leases are timed as the leader's: duration, renew deadline, retry period."""

    lease_duration: float = 15
    renew_deadline: float = 10
    retry_period: float = 2


class KindHolds:
    """Campaigns for the Lease of every kind in ``kinds()`` as the engine ``identity``."""

    def __init__(
        self,
        kube: Kube,
        kinds: Callable[[], Iterable[GVK]],
        *,
        namespace: str,
        identity: str,
        on_held: Callable[[GVK], None],
        on_lost: Callable[[GVK], None],
        timings: Timings = Timings(),
        recorder: Recorder | None = None,
        metrics: Metrics | None = None,
        interval: float = 1.0,
    ) -> None:
        leader.check_timings(timings.lease_duration, timings.renew_deadline, timings.retry_period)
        self.kube = kube
        self.namespace = namespace
        self.identity = identity
        self._kinds = kinds
        self._on_held, self._on_lost = on_held, on_lost
        self._timings = timings
        self._recorder = recorder
        self._metrics = metrics
        self._interval = interval
        self._electors: dict[GVK, leader.LeaderElector] = {}
        self._unheld: set[GVK] = set()  # served without a hold: its Lease may not be read
        self._retiring: set[GVK] = set()  # electors stopped because their kind is gone
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # -- public ------------------------------------------------------------

    def holds(self, gvk: GVK) -> bool:
        """True while this engine holds the kind (or serves it without a hold)."""
        with self._lock:
            elector = self._electors.get(gvk)
            return gvk in self._unheld or (elector is not None and elector.is_leader)

    def held(self) -> dict[GVK, str]:
        """Each kind campaigned for, and its Lease's name."""
        with self._lock:
            return {gvk: e.name for gvk, e in self._electors.items()}

    def start(self) -> None:
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="kind-holds", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop following the kinds and release every kind's Lease (its writes stopped first)."""
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()
        with self._lock:
            electors = list(self._electors.values())
        for elector in electors:
            elector.stop(release=True)

    # -- the loop ------------------------------------------------------------

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.sync(set(self._kinds()))
            except Exception:
                log.exception("following the kinds' Leases failed")
            if self._stop.wait(self._interval):
                return

    def sync(self, kinds: set[GVK]) -> None:
        """Campaign for the kinds in ``kinds`` not campaigned for yet; release those gone."""
        with self._lock:
            gone = [gvk for gvk in self._electors if gvk not in kinds]
            self._unheld &= kinds
            new = [gvk for gvk in kinds if gvk not in self._electors and gvk not in self._unheld]
        for gvk in gone:
            with self._lock:
                self._retiring.add(gvk)
                elector = self._electors.pop(gvk)
            elector.stop(release=True)
            with self._lock:
                self._retiring.discard(gvk)
        for gvk in new:
            if self._stop.is_set():
                return
            self._campaign(gvk)

    def _campaign(self, gvk: GVK) -> None:
        name = holding.lease_name(*gvk)
        try:
            Lease(self.kube, self.namespace, name).get(self._timings.renew_deadline)
        except errors.ApiError as exc:
            if exc.status == 403:
                log.warning(
                    "kind %s is served without a hold: this engine may not read its Lease %s/%s (%s)",
                    gvk[1], self.namespace, name, exc,
                    extra={"kind": gvk[1], "lease": f"{self.namespace}/{name}"},
                )  # fmt: skip
                with self._lock:
                    self._unheld.add(gvk)
                self._on_held(gvk)
                return
        except errors.Unreachable:
            pass  # the elector tries again at its pace
        if self._metrics is not None:
            self._metrics.leading(name, False)  # a standby reports 0 from the start
        elector = leader.LeaderElector(
            self.kube,
            namespace=self.namespace,
            name=name,
            identity=self.identity,
            lease_duration=self._timings.lease_duration,
            renew_deadline=self._timings.renew_deadline,
            retry_period=self._timings.retry_period,
            on_started_leading=lambda: self._started(gvk, name),
            on_stopped_leading=lambda: self._stopped(gvk, name),
            on_new_leader=lambda holder: self._seen(gvk, name, holder),
            labels={holding.LEASE_LABEL: "true"},
        )
        with self._lock:
            self._electors[gvk] = elector
        elector.start()

    # -- what the electors tell --------------------------------------------------

    def _started(self, gvk: GVK, name: str) -> None:
        if self._metrics is not None:
            self._metrics.leading(name, True)
        self._on_held(gvk)

    def _stopped(self, gvk: GVK, name: str) -> None:
        if self._metrics is not None:
            self._metrics.leading(name, False)
        with self._lock:
            quietly = self._stop.is_set() or gvk in self._retiring
        if not quietly:
            self._on_lost(gvk)

    def _seen(self, gvk: GVK, name: str, holder: str) -> None:
        """A holder of the kind's Lease seen for the first time: say who serves the kind."""
        where = {"kind": gvk[1], "lease": f"{self.namespace}/{name}", "holder": holder}
        if holder == self.identity:
            message = holding.holding(gvk[1], self.identity)
            reason = "Holding"
        else:
            message = holding.standing_by(gvk[1], holder, self.identity)
            reason = "StandingBy"
        log.info(message, extra=where)
        if self._recorder is not None:
            self._recorder.emit(self._lease_object(name), events.NORMAL, reason, message)

    def _lease_object(self, name: str) -> Obj:
        """The kind's Lease as an Event names it; its uid when it can be read."""
        meta: dict[str, str] = {"name": name, "namespace": self.namespace}
        try:
            lease = Lease(self.kube, self.namespace, name).get(self._timings.renew_deadline)
        except (errors.ApiError, errors.Unreachable):
            lease = None
        if lease is not None:
            meta["uid"] = str(lease["metadata"].get("uid", ""))
        obj: Obj = {"apiVersion": LEASE_API_VERSION, "kind": "Lease", "metadata": meta}
        return obj
