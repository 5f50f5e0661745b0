"""One worker's turn as the outside sees it: the reconcile's metrics and the root span of its trace.

``Worker.process`` (``engine.runtime.reconciling.workers.worker``) opens a ``Turn`` around one reconcile
and tells it how the reconcile ended (``outcome``, ``failed``); the turn counts it in the metrics
(active workers, the result, the time taken, a terminal error) and ends its ``reconcile`` span
with the same outcome, so the metrics and the trace of a reconcile can never tell two stories.
"""

from __future__ import annotations

import time
from types import TracebackType
from typing import TYPE_CHECKING

from engine.core.model.objects import Key
from engine.runtime.telemetry import tracing

if TYPE_CHECKING:
    from engine.runtime.telemetry.observability import Metrics, ReconcileResult


class Turn:
    """One reconcile of ``key`` by the controller of ``kind``, from its start to its outcome."""

    def __init__(self, metrics: Metrics | None, tracer: tracing.Tracer, kind: str, key: Key) -> None:
        self.metrics = metrics
        self.kind = kind
        self.outcome: ReconcileResult = "success"
        self.terminal = False
        namespace, name = key
        self._span = tracer.span("reconcile", kind=kind, namespace=namespace, name=name)
        self._trace: tracing.Span | None = None
        self._started = 0.0

    def __enter__(self) -> Turn:
        if self.metrics:
            self.metrics.worker_started(self.kind)
        self._started = time.monotonic()
        self._trace = self._span.__enter__()
        return self

    def failed(self, error: BaseException, *, terminal: bool = False) -> None:
        """The reconcile raised ``error`` (handled by the caller): an error, terminal or not."""
        self.outcome, self.terminal = "error", terminal
        if self._trace is not None:
            self._trace.fail(error)

    def __exit__(
        self, error_type: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._trace is not None:
            self._trace.set(outcome=self.outcome, terminal=self.terminal)
        self._span.__exit__(error_type, error, tb)
        if self.metrics:
            self.metrics.worker_finished(self.kind)
            seconds = time.monotonic() - self._started
            self.metrics.reconciled(self.kind, self.outcome, seconds, terminal=self.terminal)
