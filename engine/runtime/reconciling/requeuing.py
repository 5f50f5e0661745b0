"""What a reconcile and the worker that runs it say to each other, and nothing more.

The worker (``worker``) owns the queue, the threads and the retries; a reconciler (a kind's
``controller.KindController``) owns the steps of one reconcile.  Between them pass only a
``Result``, what one reconcile asks of the queue, and ``Wakes``, the queue as a reconciler
sees it: a parent's key queued again, its failures forgotten, and whether other parents wait.
Keeping this apart lets the worker know nothing of kinds and the reconciler nothing of threads
and queues (controller-runtime's ``reconcile.Result`` beside its controller's work queue).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from engine.core.model.objects import Key


@dataclass(frozen=True)
class Result:
    """What a reconcile asks of the queue: nothing, another look after a delay, or (``when_idle``)
    another look once no other parent waits, after the delay at the latest."""

    requeue_after: float | None = None
    when_idle: bool = False  # then: once no other parent waits, or after requeue_after at the latest
    # requeue_after is the kind's period (``reconcileEvery``): a success, not a requeue, in the metrics
    periodic: bool = False


class Wakes(Protocol):
    """The work queue as a reconciler sees it (``queue.WorkQueue`` is one)."""

    def add(self, key: Key) -> None:
        """Reconcile the parent of ``key`` (again), unless it is waiting already."""
        ...

    def forget(self, key: Key) -> None:
        """The parent of ``key`` is gone: its failures and holds go with it."""
        ...

    def waiting_besides(self, key: Key) -> int:
        """How many other parents wait for a worker."""
        ...
