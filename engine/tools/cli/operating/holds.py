"""What ``stencil run`` does while it holds a Lease, and the claims of its kinds with their heartbeat.

``Holding`` is a replica's part in any Lease it campaigns for (the leader's, a shard's, the
engine's heartbeat); ``kind_holds`` and ``heartbeat`` make the claims of the engine's kinds and
the engine's own heartbeat Lease (``engine.runtime.serving.holding`` says how they are judged).
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from engine.runtime.cluster.kube import Kube
    from engine.runtime.serving import holding, leader, manager
    from engine.runtime.telemetry import observability

log = logging.getLogger("stencil")


@dataclass(frozen=True)
class Holding:
    """What a replica does while it holds a Lease (``begin``) and when it stops holding it.

    Like controller-runtime, a replica that loses a Lease while running exits at once, to start
    again as a clean standby: another replica may already hold it, so no reconcile may finish.
    On SIGTERM it ends its work (``end``) instead, and the Lease is released after that.
    """

    lease: str  # which Lease, as the log says it
    began: str  # logged when the Lease is taken
    begin: Callable[[], object]
    end: Callable[[], object]
    stopping: threading.Event
    report: Callable[[bool], None] = lambda holding: None  # told True on taking it, False on losing it

    def started(self) -> None:
        self.report(True)
        log.info(self.began)
        self.begin()

    def stopped(self) -> None:
        self.report(False)
        if not self.stopping.is_set():
            log.error("lost the %s Lease; exiting", self.lease)
            os._exit(1)
        self.end()  # SIGTERM: reconciles under way finish before the Lease is released


def kind_holds(
    kube: Kube,
    engine: manager.Engine,
    metrics: observability.Metrics,
    *,
    namespace: str,
    identity: str,
    heartbeat: tuple[str, float],
    timings: tuple[float, float, float],
    sharded: bool,
) -> holding.KindHolds:
    """The claims of the engine's kinds, not started; ``heartbeat`` is the Lease (``namespace/name``)
    and duration the claims name.  A kind taken is served (sharded: the sharder asks the holds).
    A standby reads the claims at leader election's retry period."""
    from engine.runtime.serving import holding

    holds = holding.KindHolds(
        kube,
        lambda: list(engine.controllers),
        namespace=namespace,
        identity=identity,
        heartbeat=heartbeat[0],
        heartbeat_duration=heartbeat[1],
        on_held=(lambda gvk: None) if sharded else engine.serve_kind,
        timings=holding.Timings(retry_period=timings[2], timeout=timings[1]),
        recorder=engine.recorder,
        metrics=metrics,
    )
    engine.on_new_kind = holds.wake  # a kind loaded is claimed at once, not at the next round
    return holds


def heartbeat(
    kube: Kube,
    holds: holding.KindHolds,
    metrics: observability.Metrics,
    stopping: threading.Event,
    lease: str,
    identity: str,
    timings: tuple[float, float, float],
) -> leader.LeaderElector:
    """The engine's own heartbeat Lease, campaigned for, started: the kinds are taken once it is
    held, and losing it ends the process as a lost leader Lease does, before a standby may judge
    the heartbeat dead and take the kinds."""
    from engine.runtime.serving import leader

    namespace, _, name = lease.partition("/")
    if not namespace or not name:
        raise click.BadParameter(f"{lease!r} is not NAMESPACE/NAME", param_hint="--heartbeat-lease")
    began = "holding the engine's heartbeat Lease; taking its kinds"
    beating = Holding(
        "heartbeat", began, holds.start, lambda: None, stopping, lambda on: metrics.leading(name, on)
    )
    duration, deadline, retry = timings
    elector = leader.LeaderElector(
        kube,
        namespace=namespace,
        name=name,
        identity=identity,
        lease_duration=duration,
        renew_deadline=deadline,
        retry_period=retry,
        on_started_leading=beating.started,
        on_stopped_leading=beating.stopped,
    )
    elector.start()
    return elector
