"""What a kind's controller is given by the engine around it, and what it answers.

``Host`` is the engine as a controller sees it: the client, the options, the caches, the
event recorder, the memory budget and the counts.  ``manager.Engine`` is one; a controller
holds nothing of the engine beyond these, so the manager imports the controller and never
the other way round.  ``Counts`` keeps what the controllers wrote, one method per counter.
What a reconcile answers is ``requeuing.Result``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from engine.runtime.cluster.informers import InformerSet
from engine.runtime.cluster.seam import Api
from engine.runtime.reconciling import events, memory
from engine.runtime.reconciling.caches.children import Children
from engine.runtime.reconciling.options import Options
from engine.runtime.reconciling.revisions import Revisions

if TYPE_CHECKING:
    from engine.runtime.telemetry.observability import Metrics


class Counts:
    """What the controllers did, by kind: the totals (``("apply" | "prune" | "status", kind)``)
    an engine's tests read, and the metrics' counters; a child left unchanged reaches only
    the metrics."""

    def __init__(self, totals: dict[tuple[str, str], int], metrics: Metrics | None) -> None:
        self.totals = totals
        self._metrics = metrics
        self._lock = threading.Lock()

    def applied(self, kind: str) -> None:
        self._add("apply", kind)
        if self._metrics:
            self._metrics.applied(kind)

    def pruned(self, kind: str) -> None:
        self._add("prune", kind)
        if self._metrics:
            self._metrics.pruned(kind)

    def skipped(self, kind: str) -> None:
        if self._metrics:
            self._metrics.skipped(kind)

    def status_written(self, kind: str) -> None:
        self._add("status", kind)
        if self._metrics:
            self._metrics.status_written(kind)

    def _add(self, what: str, kind: str) -> None:
        with self._lock:
            self.totals[(what, kind)] = self.totals.get((what, kind), 0) + 1


class Host(Protocol):
    """The engine's parts a controller uses."""

    @property
    def kube(self) -> Api: ...

    @property
    def options(self) -> Options: ...

    @property
    def informers(self) -> InformerSet: ...

    @property
    def parent_selector(self) -> str | None: ...

    @property
    def children(self) -> Children: ...

    @property
    def recorder(self) -> events.Recorder: ...

    @property
    def memory(self) -> memory.Budget: ...

    @property
    def counts(self) -> Counts: ...

    @property
    def revisions(self) -> Revisions: ...

    @property
    def shard_members(self) -> Callable[[], frozenset[str]] | None:
        """The live replicas as this one sees their Leases, when sharded."""
        ...
