"""Writing a parent's status: derived once a reconcile, written once if it changed, progress paced.

The last step of ``KindController.reconcile``, as Flux's ``finalizeStatus`` is of its
reconcilers: ``StatusWriter.write`` derives the status (``engine.core.decisions.status``, pure)
and writes it through the status subresource only if it changed.  It answers with a
``Report``: whether the status on the parent is the new one now, and if not, when to look
again.  A status that only says how far things got (``status.can_wait``) may wait:

- while other parents wait for a worker, for at most ``REPORT_WAIT``: under load, reporting
  never delays work that changes the cluster, and a parent that becomes Ready meanwhile gets
  one status write instead of two;
- less than ``PROGRESS_INTERVAL`` after the last write, when it only reports progress
  (``status.only_progress``): a Deployment's steps towards Available become one write, not three.

The pacing reads the engine's one clock (``Options.clock``, its monotonic seconds), so a test
moves time by hand.
"""

from __future__ import annotations

import collections
import enum
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.core.decisions import conditions, status
from engine.core.decisions.coordination import rollout
from engine.core.model import errors, kinds
from engine.core.model.objects import Obj, key_of, uid_of
from engine.runtime.cluster.informers import Across
from engine.runtime.cluster.kube import Resource
from engine.runtime.reconciling.host import Host
from engine.runtime.reconciling.requeuing import Result, Wakes

PROGRESS_INTERVAL = 2.0  # seconds between two writes of a status that only reports progress
REPORT_WAIT = 30.0  # seconds a status that can wait waits at most while other parents wait


class Fate(enum.Enum):
    """What became of a derived status."""

    UNCHANGED = "unchanged"  # the parent says it already
    WRITTEN = "written"
    WAITS = "waits"  # it only says how far things got: written later (``Report.again`` says when)
    STALE = "stale"  # derived from a stale read (the server refused its resourceVersion)
    GONE = "gone"  # the parent was deleted meanwhile: nothing left to report on


@dataclass(frozen=True)
class Report:
    """A derived status and what became of it; ``again``: when to reconcile once more, if at all."""

    fate: Fate
    status: Mapping[str, Any]
    again: Result | None = None

    @property
    def stands(self) -> bool:
        """Whether the parent's status is ``status`` now."""
        return self.fate in (Fate.UNCHANGED, Fate.WRITTEN)


class StatusWriter:
    """Derives and writes the status of one kind's parents, pacing reports of progress."""

    def __init__(
        self,
        host: Host,
        controller: str,
        resource: Resource,
        parents: Across,
        wakes: Wakes,
        clock: Callable[[], float],
    ) -> None:
        self.host = host
        self.controller = controller
        self.resource = resource
        self.parents = parents
        self.wakes = wakes
        self.clock = clock
        self._written: dict[str, float] = {}  # parent uid -> when its status was last written
        self._waiting: dict[str, float] = {}  # parent uid -> since when its report has waited
        self._ready: dict[str, str] = {}  # parent uid -> its Ready status, as last written or found
        self._ready_lock = threading.Lock()

    def forget(self, uid: str) -> None:
        """A parent is gone: its pacing with it."""
        self._written.pop(uid, None)
        self._waiting.pop(uid, None)
        with self._ready_lock:
            self._ready.pop(uid, None)

    def readiness(self) -> dict[str, int]:
        """How many parents stand at each status of Ready, as their last reconcile left it: the
        ``stencil_parents`` gauge, counted from what this writer knows, reading no cache."""
        with self._ready_lock:
            return dict(collections.Counter(self._ready.values()))

    def _stands(self, parent: Obj, new: Mapping[str, Any]) -> None:
        ready = conditions.find_in(new.get("conditions") or (), "Ready")
        with self._ready_lock:
            self._ready[uid_of(parent)] = str(ready.get("status")) if ready else "Unknown"

    def write(
        self,
        kind: kinds.Kind,
        parent: Obj,
        observed: Sequence[Obj],
        related: Sequence[Obj],
        outcome: status.Outcome,
        now: str,
        *,
        may_wait: bool,
    ) -> Report:
        """Derive the parent's status and write it, once, only if it changed.  With ``may_wait``
        (a reconcile that will be looked at again, not one ending in an error), a status that
        only says how far things got may wait (see the module docstring)."""
        with self.host.options.tracer.span("status") as span:
            new = status.derive_status(kind, parent, observed, outcome, now, related)
            report = self._report(parent, new, may_wait)
            span.set(fate=report.fate.value)
        return report

    def _report(self, parent: Obj, new: Mapping[str, Any], may_wait: bool) -> Report:
        """The derived status written, or left to wait, or found already said."""
        ops = status.status_patch(parent, new)
        if ops is None:
            self._waiting.pop(uid_of(parent), None)  # nothing left to report
            self._stands(parent, new)
            return Report(Fate.UNCHANGED, new)
        if may_wait and status.can_wait(parent.get("status"), new):
            later = self._later(parent, new)
            if later is not None:
                return Report(Fate.WAITS, new, later)
        return self._patch(parent, new, ops)

    def record_move(self, parent: Obj, revision: int, now: str) -> Result:
        """Record the parent's move to ``revision`` of its kind before its children change
        (``rollout.moved``); the reconcile goes on at once from there."""
        new = rollout.moved(parent, revision, now)
        ops = status.status_patch(parent, new)
        report = self._patch(parent, new, ops) if ops is not None else None
        return report.again if report is not None and report.again is not None else Result(requeue_after=0.0)

    def _later(self, parent: Obj, new: Mapping[str, Any]) -> Result | None:
        """When a status that can wait is written, if not now."""
        uid = uid_of(parent)
        clock = self.clock()
        waiting = clock - self._waiting.setdefault(uid, clock)
        if self.wakes.waiting_besides(key_of(parent)) and waiting < REPORT_WAIT:
            return Result(requeue_after=REPORT_WAIT - waiting, when_idle=True)
        since = clock - self._written.get(uid, -PROGRESS_INTERVAL)
        if since < PROGRESS_INTERVAL and status.only_progress(parent.get("status"), new):
            return Result(requeue_after=PROGRESS_INTERVAL - since)
        return None

    def _patch(self, parent: Obj, new: Mapping[str, Any], ops: list[dict[str, Any]]) -> Report:
        """Write the status; a stale read is looked at again at once, with the newer parent cached."""
        meta = parent["metadata"]
        try:
            # Read our own write: the next reconcile must not see the old status and write again.
            with self.parents.writing(parent) as answered:
                answered(self.host.kube.patch_status(self.resource, meta["name"], meta.get("namespace"), ops))
        except errors.Conflict:
            self._refresh(parent)
            return Report(Fate.STALE, new, Result(requeue_after=0.0))
        except errors.NotFound:
            return Report(Fate.GONE, new)
        self._written[meta["uid"]] = self.clock()
        self._waiting.pop(meta["uid"], None)
        self.host.counts.status_written(self.controller)
        self._stands(parent, new)
        return Report(Fate.WRITTEN, new)

    def _refresh(self, parent: Obj) -> None:
        """Read the parent again into the cache (only newer states replace what is cached)."""
        meta = parent["metadata"]
        current = self.host.kube.get(self.resource, meta["name"], meta.get("namespace"))
        if current is not None:
            self.parents.observe(current)
