"""How an engine is run: its workers, the namespaces it watches, its shard, its clock.

``Options`` is read by the engine (``engine.runtime.serving.manager``) and by each kind's controller
(``engine.runtime.reconciling.reconcile.controller``); it lives apart from both so that neither
imports the other for it.

The engine has one clock, ``Options.clock``, read for two things: seconds that never go back, on
which every interval is measured (the queue's delays and backoffs, the pacing of status reports,
the back-off of a contested field or a refused child, a kind's period, a handover's patience), and
the time of day, which is what the engine writes (a condition's ``lastTransitionTime``, an event's
time, a rollout's record, an ordered teardown's deadline).  A test hands in a clock of its own and
moves both by hand.
"""

from __future__ import annotations

import datetime
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from engine.core.decisions import referencing
from engine.core.model.language import seedkeys
from engine.runtime.telemetry import tracing

if TYPE_CHECKING:
    from engine.runtime.telemetry.observability import Metrics


class Clock(Protocol):
    """The engine's clock (the module says what it is read for)."""

    def monotonic(self) -> float:
        """Seconds that never go back, from an arbitrary start."""
        ...

    def wall(self) -> datetime.datetime:
        """The time of day, in UTC."""
        ...


class SystemClock:
    """The machine's clocks: ``time.monotonic`` itself, called as cheaply, and the UTC time."""

    monotonic = staticmethod(time.monotonic)

    @staticmethod
    def wall() -> datetime.datetime:
        return datetime.datetime.now(datetime.UTC)


SYSTEM_CLOCK: Clock = SystemClock()


@dataclass
class Options:
    workers: int = 4
    resync: float = 600.0
    namespaces: tuple[str, ...] = ()  # the namespaces to watch; none given: all
    reload_interval: float = 1.0  # how often the templates folder is checked for changes
    metrics: Metrics | None = None
    tracer: tracing.Tracer = tracing.OFF  # each reconcile a trace, or (OFF) nothing at no cost
    bundle_namespace: str | None = None  # also serve kinds from labelled ConfigMaps in this namespace
    run_workers: bool = True  # False: keep caches warm but reconcile nothing (a standby replica)
    # True: a kind's workers start only once the engine holds the kind (``Engine.serve_kind``).
    held_kinds_only: bool = False
    # Where kind revisions are kept (ControllerRevisions); None: in the engine's memory only.
    revisions_namespace: str | None = None
    # The engine's own pod (namespace, name), whose Deployment owns the revisions of its namespace.
    pod: tuple[str, str] | None = None
    shard: str | None = None  # this replica's shard identity: reconcile only the parents labelled with it
    # Namespaces (shell patterns) no kind may write a child in; None: kube-* and bundle_namespace.
    protected_namespaces: tuple[str, ...] | None = None
    max_children: int | None = None  # children a parent may have (None: ``kinds.MAX_CHILDREN``)
    # The ServiceAccount a kind naming none reads its references as, in each parent's namespace,
    # and the namespace of a cluster-scoped parent's (``referencing.reader``).
    read_as: tuple[str, str] = (referencing.DEFAULT_READER, "default")
    # What random_string draws with, asked at each reconcile (``engine.runtime.cluster.seedsecret``);
    # the offline key only where no engine key is read, as in tests that build an engine by hand.
    seed_key: Callable[[], bytes] = lambda: seedkeys.OFFLINE
    clock: Clock = SYSTEM_CLOCK  # the engine's one clock: intervals and the time it writes

    @property
    def off_limits(self) -> tuple[str, ...]:
        """The protected namespaces as given, or by default kube-* and the kind ConfigMaps' namespace."""
        if self.protected_namespaces is not None:
            return self.protected_namespaces
        return ("kube-*", *((self.bundle_namespace,) if self.bundle_namespace else ()))
