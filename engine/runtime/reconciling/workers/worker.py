"""The worker: a queue of keys, the threads that take them, and what comes after each reconcile.

controller-runtime keeps this apart from the reconciler (its controller's ``reconcileHandler``
beside the user's ``Reconciler``), and so does Stencil: a ``Worker`` knows a name (for its logs
and metrics), a ``WorkQueue`` and a ``Reconciler``, and nothing of kinds, templates or parents.
It hands each key to one thread at a time, opens a ``turns.Turn`` around the reconcile, and
reads how it ended:

- a ``Result``: the key's failures forgotten; looked at again later only if the result asks;
- a terminal ``StencilError`` (a template that cannot render, a refused placement, a broken
  kind): the status already says why, and retrying cannot help until the input changes, which
  queues the key anyway: not retried (a budget overrun: held, ``WorkQueue.hold``);
- an error that is the server's trouble (unreachable, 429, 5xx) carries ``retry_after``: again
  after that long, without counting a failure against the key, so a long outage does not leave
  every key with a long backoff once the server is back;
- any other error: again after the key's exponential backoff, logged with its stack trace if it
  is not one of Stencil's own.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import TYPE_CHECKING, Protocol

from engine.core.model import budgets, errors
from engine.core.model.objects import Key
from engine.runtime.reconciling.requeuing import Result
from engine.runtime.reconciling.workers.queue import WorkQueue
from engine.runtime.telemetry import tracing, turns

if TYPE_CHECKING:
    from engine.runtime.telemetry.observability import Metrics

log = logging.getLogger("stencil.controller")


class Reconciler(Protocol):
    """What a worker runs for each key: one reconcile, which answers or raises."""

    def reconcile(self, key: Key) -> Result: ...


class Worker:
    """Runs ``reconciler`` for the keys of ``queue``, on ``workers`` threads of its own once started."""

    def __init__(
        self,
        name: str,
        reconciler: Reconciler,
        queue: WorkQueue,
        workers: int,
        *,
        metrics: Metrics | None = None,
        tracer: tracing.Tracer = tracing.OFF,
    ) -> None:
        self.name = name
        self.reconciler = reconciler
        self.queue = queue
        self.workers = workers
        self._metrics = metrics
        self._tracer = tracer
        self._threads: list[threading.Thread] = []
        if metrics:
            metrics.workers(name, workers)

    def start(self) -> None:
        """Start the threads; a second call does nothing."""
        if self._threads:
            return
        for i in range(self.workers):
            thread = threading.Thread(target=self._work, name=f"{self.name}-worker-{i}", daemon=True)
            thread.start()
            self._threads.append(thread)

    def stop(self) -> None:
        """Take no new work; reconciles under way finish (see ``drain``)."""
        self.queue.shutdown()

    def drain(self, deadline: float) -> bool:
        """Wait until every thread has finished its reconcile, up to ``deadline`` (monotonic)."""
        for thread in self._threads:
            thread.join(max(deadline - time.monotonic(), 0.0))
        return not any(thread.is_alive() for thread in self._threads)

    def _work(self) -> None:
        while True:
            key = self.queue.get()
            if key is None:
                return
            self.process(key)

    def process(self, key: Key) -> None:
        """One turn: reconcile ``key`` and tell the queue what comes next (the module says what)."""
        with turns.Turn(self._metrics, self._tracer, self.name, key) as turn:
            try:
                result = self.reconciler.reconcile(key)
                self.queue.forget(key)
                if result.when_idle:
                    turn.outcome = "requeue_after"
                    self.queue.add_when_idle(key, result.requeue_after or 0.0)
                elif result.requeue_after is not None:
                    if not result.periodic:
                        turn.outcome = "requeue_after"
                    self.queue.add_after(key, result.requeue_after)
            except errors.StencilError as exc:
                turn.failed(exc, terminal=exc.terminal)
                log.warning("reconcile failed: %s", exc, extra={"kind": self.name, "key": str(key)})
                if exc.terminal and exc.reason == budgets.OverBudget.reason:
                    self.queue.hold(key)
                elif exc.terminal:
                    self.queue.forget(key)
                elif exc.retry_after is not None:
                    self.queue.add_after(key, exc.retry_after)
                else:
                    self.queue.add_rate_limited(key)
            except Exception as exc:  # a bug or a surprise: retried with backoff, with its traceback
                turn.failed(exc)
                log.warning(
                    "reconcile failed: %s", exc, extra={"kind": self.name, "key": str(key)}, exc_info=True
                )
                self.queue.add_rate_limited(key)
            finally:
                self.queue.done(key)
