"""What an operator of Stencil sees from outside: Prometheus metrics and probes (logs: ``logs``).

Metrics keep controller-runtime's names and labels (``controller_runtime_reconcile_total``,
``workqueue_depth`` and the rest), so the Grafana dashboards and alerts people
already run for Go operators work on Stencil unchanged; Stencil's own series
(applies, prunes, no-op skips) carry the ``stencil_`` prefix.  Every series lives
in a ``Metrics`` object with its own ``CollectorRegistry`` instead of the
process-global one, so a test builds a fresh set and reads exact values, and two
engines in one process never share counters.

The HTTP side is ``httpserver``: one selector thread and a few workers, so that idle or
slow connections cost neither a thread each nor the probes' answers; three read-only
endpoints do not justify a web framework.  ``/healthz``
answers 200 for as long as the process can serve a request (liveness must not
depend on the API server, or an API-server outage would restart every replica);
``/readyz`` answers 503 until the controller calls ``Health.mark_ready`` after its
caches have synced.  ``stencil run`` serves the probes and the metrics on two ports, as
controller-runtime does: the probes in plain HTTP for the kubelet, the metrics over TLS
with each scrape's token judged by the API server (``engine.runtime.telemetry.delegation``).
"""

from __future__ import annotations

import functools
import ssl
import threading
from collections.abc import Callable, Mapping
from http import HTTPStatus
from typing import Literal

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.exposition import CONTENT_TYPE_LATEST, generate_latest

from engine.core.model.objects import Key
from engine.runtime.telemetry import delegation, httpserver

# controller-runtime's reconcile_time_seconds buckets (pkg/internal/controller/metrics):
# fine steps below a second where most reconciles land, coarse ones up to a minute.
RECONCILE_BUCKETS = (
    0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9,
    1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 15.0, 20.0,
    25.0, 30.0, 40.0, 50.0, 60.0,
)  # fmt: skip
# client-go's workqueue buckets: ExponentialBuckets(10e-9, 10, 12), 10ns .. 1000s.
QUEUE_BUCKETS = tuple(float(f"1e{exponent}") for exponent in range(-8, 4))

READY_STATUSES = ("True", "False", "Unknown")  # a Ready condition's status (metav1.Condition)
ReconcileResult = Literal["success", "error", "requeue", "requeue_after"]


class Metrics:
    """Every series the engine exports, registered in a registry of their own."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.reconcile_total = Counter(
            "controller_runtime_reconcile_total",
            "Total number of reconciliations per controller",
            ["controller", "result"],
            registry=r,
        )
        self.reconcile_errors_total = Counter(
            "controller_runtime_reconcile_errors_total",
            "Total number of reconciliation errors per controller",
            ["controller"],
            registry=r,
        )
        self.terminal_reconcile_errors_total = Counter(
            "controller_runtime_terminal_reconcile_errors_total",
            "Total number of terminal reconciliation errors per controller",
            ["controller"],
            registry=r,
        )
        self.reconcile_time_seconds = Histogram(
            "controller_runtime_reconcile_time_seconds",
            "Length of time per reconciliation per controller",
            ["controller"],
            buckets=RECONCILE_BUCKETS,
            registry=r,
        )
        self.active_workers = Gauge(
            "controller_runtime_active_workers",
            "Number of currently used workers per controller",
            ["controller"],
            registry=r,
        )
        self.max_concurrent_reconciles = Gauge(
            "controller_runtime_max_concurrent_reconciles",
            "Maximum number of concurrent reconciles per controller",
            ["controller"],
            registry=r,
        )
        # Recent controller-runtime labels work-queue series with both ``name`` and
        # ``controller`` (the same value); dashboards written for either keep working.
        queue_labels = ["name", "controller"]
        self.workqueue_depth = Gauge(
            "workqueue_depth", "Current depth of workqueue", queue_labels, registry=r
        )
        self.workqueue_adds_total = Counter(
            "workqueue_adds_total", "Total number of adds handled by workqueue", queue_labels, registry=r
        )
        self.workqueue_queue_duration_seconds = Histogram(
            "workqueue_queue_duration_seconds",
            "How long in seconds an item stays in workqueue before being requested",
            queue_labels,
            buckets=QUEUE_BUCKETS,
            registry=r,
        )
        self.workqueue_work_duration_seconds = Histogram(
            "workqueue_work_duration_seconds",
            "How long in seconds processing an item from workqueue takes",
            queue_labels,
            buckets=QUEUE_BUCKETS,
            registry=r,
        )
        self.workqueue_retries_total = Counter(
            "workqueue_retries_total",
            "Total number of retries handled by workqueue",
            queue_labels,
            registry=r,
        )
        self.leader_election_master_status = Gauge(
            "leader_election_master_status",
            "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, "
            "1 indicates master. 'name' is the string used to identify the lease.",
            ["name"],
            registry=r,
        )
        self.applies_total = Counter(
            "stencil_applies_total", "Children server-side applied, per child kind", ["kind"], registry=r
        )
        self.prunes_total = Counter(
            "stencil_prunes_total",
            "Children deleted because no template renders them any more, per child kind",
            ["kind"],
            registry=r,
        )
        self.apply_skips_total = Counter(
            "stencil_apply_skips_total",
            "Applies not sent because the cached child already matched, per child kind",
            ["kind"],
            registry=r,
        )
        self.status_writes_total = Counter(
            "stencil_status_writes_total", "Parent statuses written, per parent kind", ["kind"], registry=r
        )
        self.parents = Gauge(
            "stencil_parents", "Parents by Ready status, last reconciled", ["controller", "ready"], registry=r
        )
        # client-go's series, as controller-runtime exports it: throttling (429), writes by verb.
        self.rest_client_requests_total = Counter(
            "rest_client_requests_total",
            "Number of HTTP requests, partitioned by status code, method, and host.",
            ["code", "method", "host"],
            registry=r,
        )
        self.events_dropped_total = Counter(
            "stencil_events_dropped_total",
            "Events not sent: over the pace of Normal events, or too many waiting to be sent",
            ["cause"],
            registry=r,
        )
        # Sharding (--shards): what each replica holds, and what the sharder moved and how fast.
        self.shard_parents = Gauge(
            "stencil_shard_parents",
            "Parents of this kind assigned to this replica (in its cache)",
            ["controller"],
            registry=r,
        )
        self.shard_releases_total = Counter(
            "stencil_shard_releases_total",
            "Parents this replica handed over after the sharder marked them draining",
            ["controller"],
            registry=r,
        )
        self.shard_members = Gauge(
            "stencil_shard_members", "Live members, as the sharder sees their Leases", registry=r
        )
        self.shard_assignments_total = Counter(
            "stencil_shard_assignments_total",
            "Parents the sharder labelled with an owner: new (never owned), handed-over (after the "
            "owner released it) or owner-gone (its owner's Lease expired)",
            ["controller", "reason"],
            registry=r,
        )
        # Rollouts of a changed kind (kind.yaml's rollout:).
        self.rollout_parents = Gauge(
            "stencil_rollout_parents",
            "Parents of a kind in its rollout: updated (Ready at the update revision), moving, pending",
            ["controller", "state"],
            registry=r,
        )
        self.rollout_paused = Gauge(
            "stencil_rollout_paused", "1 while a kind's rollout is paused", ["controller"], registry=r
        )
        self.shard_handover_seconds = Histogram(
            "stencil_shard_handover_seconds",
            "From marking a parent draining to assigning it to its new owner",
            ["controller"],
            buckets=RECONCILE_BUCKETS,
            registry=r,
        )

    # -- the reconcile loop ----------------------------------------------

    def reconciled(
        self, controller: str, result: ReconcileResult, seconds: float, *, terminal: bool = False
    ) -> None:
        """One reconcile finished with ``result`` after ``seconds``.

        As in controller-runtime, an error counts in both the result total and the
        error total, and a terminal error (one that retrying cannot fix) also in
        the terminal total.
        """
        self.reconcile_total.labels(controller=controller, result=result).inc()
        self.reconcile_time_seconds.labels(controller=controller).observe(seconds)
        if result == "error":
            self.reconcile_errors_total.labels(controller=controller).inc()
            if terminal:
                self.terminal_reconcile_errors_total.labels(controller=controller).inc()

    def workers(self, controller: str, maximum: int) -> None:
        """Declare a controller and its worker count, so its series exist from the start."""
        self.max_concurrent_reconciles.labels(controller=controller).set(maximum)
        self.active_workers.labels(controller=controller).set(0)
        for result in ("success", "error", "requeue", "requeue_after"):
            self.reconcile_total.labels(controller=controller, result=result)
        self.reconcile_errors_total.labels(controller=controller)
        self.terminal_reconcile_errors_total.labels(controller=controller)

    def worker_started(self, controller: str) -> None:
        self.active_workers.labels(controller=controller).inc()

    def worker_finished(self, controller: str) -> None:
        self.active_workers.labels(controller=controller).dec()

    def workqueue(self, name: str) -> QueueMetrics:
        """An observer for ``queue.WorkQueue`` that feeds the ``workqueue_*`` series of ``name``."""
        return QueueMetrics(self, name)

    def leading(self, lease: str, is_leader: bool) -> None:
        self.leader_election_master_status.labels(name=lease).set(1 if is_leader else 0)

    # -- sharding ----------------------------------------------------------

    def shard_holds(self, controller: str, count: Callable[[], int]) -> None:
        """Report ``count()`` (read at each scrape) as this replica's parents of ``controller``."""
        self.shard_parents.labels(controller=controller).set_function(count)

    def shard_released(self, controller: str) -> None:
        self.shard_releases_total.labels(controller=controller).inc()

    def shard_assigned(self, controller: str, reason: str, handover: float | None) -> None:
        self.shard_assignments_total.labels(controller=controller, reason=reason).inc()
        if handover is not None:
            self.shard_handover_seconds.labels(controller=controller).observe(handover)

    # -- what a reconcile did to children ----------------------------------

    def applied(self, kind: str) -> None:
        self.applies_total.labels(kind=kind).inc()

    def pruned(self, kind: str) -> None:
        self.prunes_total.labels(kind=kind).inc()

    def skipped(self, kind: str) -> None:
        self.apply_skips_total.labels(kind=kind).inc()

    def status_written(self, kind: str) -> None:
        self.status_writes_total.labels(kind=kind).inc()

    def readiness(self, controller: str, count: Callable[[], Mapping[str, int]]) -> None:
        """Report ``count()`` (read at each scrape: parents by Ready status) for ``controller``."""
        for ready in READY_STATUSES:
            gauge = self.parents.labels(controller=controller, ready=ready)
            gauge.set_function(functools.partial(_of, count, ready))

    def answered(self, host: str, method: str, code: int) -> None:  # Kube.observe
        self.rest_client_requests_total.labels(code=str(code), method=method, host=host).inc()

    def rollout(self, controller: str, updated: int, moving: int, total: int, *, paused: bool) -> None:
        """Where a kind's rollout stands."""
        for state, count in (("updated", updated), ("moving", moving), ("pending", total - updated - moving)):
            self.rollout_parents.labels(controller=controller, state=state).set(count)
        self.rollout_paused.labels(controller=controller).set(1 if paused else 0)

    def event_dropped(self, cause: str) -> None:
        self.events_dropped_total.labels(cause=cause).inc()

    # -- reading ---------------------------------------------------------

    def exposition(self) -> bytes:
        """The registry in Prometheus text format, as served at ``/metrics``."""
        return generate_latest(self.registry)

    def value(self, name: str, **labels: str) -> float | None:
        """The current value of one sample, or None if it was never recorded."""
        found: float | None = self.registry.get_sample_value(name, labels)
        return found


def _of(count: Callable[[], Mapping[str, int]], key: str) -> int:
    return count().get(key, 0)


class QueueMetrics:
    """The ``workqueue_*`` series of one queue; satisfies ``reconciling.workers.queue.QueueObserver``."""

    def __init__(self, metrics: Metrics, name: str) -> None:
        labels = {"name": name, "controller": name}
        self._depth = metrics.workqueue_depth.labels(**labels)
        self._adds = metrics.workqueue_adds_total.labels(**labels)
        self._queue_duration = metrics.workqueue_queue_duration_seconds.labels(**labels)
        self._work_duration = metrics.workqueue_work_duration_seconds.labels(**labels)
        self._retries = metrics.workqueue_retries_total.labels(**labels)

    def depth(self, depth: int) -> None:
        self._depth.set(depth)

    def added(self, key: Key) -> None:
        self._adds.inc()

    def waited(self, key: Key, seconds: float) -> None:
        self._queue_duration.observe(seconds)

    def processed(self, key: Key, seconds: float) -> None:
        self._work_duration.observe(seconds)

    def retried(self, key: Key) -> None:
        self._retries.inc()


class Health:
    """Liveness and readiness as the probes see them; thread-safe."""

    def __init__(self) -> None:
        self._ready = threading.Event()
        self._reason = "caches not synced"
        self._lock = threading.Lock()

    def mark_ready(self) -> None:
        """The caches have synced: ``/readyz`` answers 200 from now on."""
        self._ready.set()

    def mark_unready(self, reason: str) -> None:
        """``/readyz`` answers 503 with ``reason`` (while shutting down, for instance)."""
        with self._lock:
            self._reason = reason
        self._ready.clear()

    @property
    def ready(self) -> bool:
        return self._ready.is_set()

    @property
    def reason(self) -> str:
        with self._lock:
            return self._reason


def _answer(
    metrics: Metrics | None,
    health: Health | None,
    gate: delegation.Delegate | None,
    request: httpserver.Request,
) -> httpserver.Response:
    """What ``/metrics``, ``/healthz``, ``/livez`` and ``/readyz`` answer, whichever are served."""
    path = request.path.split("?", 1)[0]
    if path == "/metrics" and metrics is not None:
        verdict = HTTPStatus.OK if gate is None else gate.verdict(request.headers.get("authorization"), path)
        if verdict == HTTPStatus.OK:
            return httpserver.Response(HTTPStatus.OK, metrics.exposition(), CONTENT_TYPE_LATEST)
        return httpserver.Response(verdict, f"{verdict.phrase}\n".encode())
    if path in ("/healthz", "/livez") and health is not None:
        return httpserver.Response(HTTPStatus.OK, b"ok\n")
    if path == "/readyz" and health is not None:
        if health.ready:
            return httpserver.Response(HTTPStatus.OK, b"ok\n")
        return httpserver.Response(HTTPStatus.SERVICE_UNAVAILABLE, f"not ready: {health.reason}\n".encode())
    return httpserver.Response(HTTPStatus.NOT_FOUND, b"not found\n")


def serve(
    metrics: Metrics | None,
    health: Health | None,
    host: str,
    port: int,
    *,
    gate: delegation.Delegate | None = None,
    tls: ssl.SSLContext | None = None,
    max_connections: int = httpserver.MAX_CONNECTIONS,
    head_timeout: float = httpserver.HEAD_TIMEOUT,
) -> httpserver.Server:
    """Serve ``/metrics`` (unless ``metrics`` is None) and the probes (unless ``health`` is None).

    With ``tls`` the port speaks HTTPS; with ``gate`` every ``/metrics`` request must carry a
    token the gate accepts.  At most ``max_connections`` are open at once, and each has
    ``head_timeout`` seconds for its handshake and request head (``httpserver``).  ``port=0``
    picks a free port (read it from ``server.server_address``).  Stop it with
    ``server.shutdown()`` and then ``server.server_close()``.
    """
    respond = functools.partial(_answer, metrics, health, gate)
    server = httpserver.Server(
        (host, port), respond, tls=tls, max_connections=max_connections, head_timeout=head_timeout
    )
    server.start()
    return server
