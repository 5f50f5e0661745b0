"""A cold start on a large converged set: how soon Stencil is synced and idle, what it writes and holds.

The set is N DeployWebServices with ``replicas: 0`` (a Deployment and a Service each, so
2N children, and no pods for the plane to run), created and converged by the floor
(``bench.floor``, which applies the same children and writes the same status as Stencil
would).  The floor is then stopped and ``stencil run`` started with default flags on the
converged set.  Measured from outside:

- **synced**: start → ``/readyz`` answers 200 (every cache listed);
- **idle**: start → every parent reconciled once and the work queue empty with no worker
  busy (``/metrics``);
- **writes**: the engine's writes from its start until ``settle`` seconds after idle (a
  converged set needs none);
- **RSS**: the engine's resident memory once idle, and its peak, next to the floor's
  (which caches the same parents and children) after converging the set.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from bench import converging
from bench.contenders import Contender, Running, start
from bench.workloads import WORKLOADS
from engine.testing import write_requests

WORKLOAD = WORKLOADS["deploywebservice"]
SEED_WORKERS = 16
IDLE_TIMEOUT = 600.0


@dataclass(frozen=True)
class ColdStart:
    """What one cold start measured; times in seconds."""

    parents: int
    children: int
    seed_seconds: float  # the floor's create → all Ready of the set
    floor_rss_mib: float  # the floor's resident memory with the set cached
    synced_seconds: float
    idle_seconds: float
    reconciles: int
    writes: int
    writes_by_verb: dict[str, int]
    rss_mib: float  # once idle
    peak_rss_mib: float
    cpu_seconds: float


def run(plane: converging.Plane, n: int, settle: float) -> ColdStart:
    admin = plane.admin
    namespace = f"bench-cold-{n}"
    admin.request("POST", "/api/v1/namespaces", {"metadata": {"name": namespace}})
    kubeconfig = converging.contender_kubeconfig(plane)
    resource = admin.resource(WORKLOAD.api_version, WORKLOAD.kind)
    # Seed: the floor converges the set.
    floor = start(
        Contender("floor", "floor", workers=SEED_WORKERS),
        WORKLOAD,
        kubeconfig,
        namespace,
        _log(plane, "floor"),
    )
    try:
        floor.wait_ready()
        watch = converging.Readiness(admin, resource, namespace)
        created = converging.create(admin, [WORKLOAD.parent(i, namespace, replicas=0) for i in range(n)])
        watch.wait(n, converging.CONVERGE_TIMEOUT, floor)
        seed_seconds = max(watch.ready_at.values()) - min(created.values())
        watch.stop()
        floor_rss = floor.rss_mib()
    finally:
        floor.stop()
    # Cold start.
    writes_before = write_requests(admin)
    started = time.monotonic()
    stencil = start(Contender("stencil", "stencil"), WORKLOAD, kubeconfig, namespace, _log(plane, "stencil"))
    try:
        stencil.wait_ready(IDLE_TIMEOUT)
        synced = time.monotonic() - started
        reconciles = _wait_idle(stencil, n)
        idle = time.monotonic() - started
        rss = stencil.rss_mib()
        time.sleep(settle)
        writes = WORKLOAD.contender_writes(write_requests(admin) - writes_before)
        peak, cpu = stencil.peak_rss_mib(), stencil.cpu_seconds()
    finally:
        stencil.stop()
    return ColdStart(
        parents=n,
        children=2 * n,
        seed_seconds=seed_seconds,
        floor_rss_mib=floor_rss,
        synced_seconds=synced,
        idle_seconds=idle,
        reconciles=reconciles,
        writes=sum(writes.values()),
        writes_by_verb=dict(sorted(writes.items())),
        rss_mib=rss,
        peak_rss_mib=peak,
        cpu_seconds=cpu,
    )


def _wait_idle(running: Running, n: int) -> int:
    """Poll ``/metrics`` until every parent was reconciled once and nothing is queued or under way;
    the number of reconciles by then."""
    deadline = time.monotonic() + IDLE_TIMEOUT
    while True:
        figures = running.metrics()
        reconciles = int(figures.get("controller_runtime_reconcile_total", 0))
        busy = figures.get("workqueue_depth", 0) + figures.get("controller_runtime_active_workers", 0)
        if reconciles >= n and busy == 0:
            return reconciles
        if time.monotonic() > deadline:
            raise TimeoutError(f"not idle after {IDLE_TIMEOUT:.0f} s: {reconciles} reconciles, {busy} busy")
        running.alive()
        time.sleep(0.05)


def _log(plane: converging.Plane, who: str) -> Path:
    return plane.scratch / f"cold-{who}.log"
