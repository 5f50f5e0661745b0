"""A backlog: N parents already there, unconverged, when the contender starts.

``bench.converging`` creates the parents while the contender runs, ``CREATORS`` at a time, so
a contender that keeps up with the harness looks like the floor.  An install on a busy
cluster, an upgrade or the end of an outage look like this instead: every parent exists
and none is converged when the controller starts, and what it takes to catch up is the
figure a user feels.  One run:

1. the run's namespace and its N parents are created with no contender running (for kro,
   which makes the instance kind from its graph, kro is started until the kind is served,
   then stopped first);
2. the contender is started: **synced** is start → it says it is ready (Stencil's and kro's
   ``/readyz``, the floors' ``ready`` line: their caches are listed), **all Ready** is start →
   every parent reads ``Ready=True`` at its generation (``converging.Readiness``); **half
   Ready** and **99 % Ready** are start → half and 99 % of them do: a slow start and a long tail
   show apart from the pace in between;
3. ``settle`` seconds later, what it cost, read from outside as in ``bench.converging``: its
   requests (its FlowSchema's count) and writes by verb and resource per parent, its CPU
   time per parent and its peak RSS, all from its start; and Stencil's own count of its
   reconciles and status writes per parent (its ``/metrics``).

The figures include the contender's start-up (its process, its first lists): that is part
of catching up.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from bench import converging
from bench.contenders import Contender, per, start
from bench.workloads import KRO_GROUP, Workload
from engine.testing import dispatched_requests, write_requests

TIMEOUT = 1800.0  # a contender not caught up by then is left out, and the notes say so


@dataclass(frozen=True)
class Backlog:
    """What one backlog run measured; times in seconds from the contender's start."""

    workload: str
    n: int
    contender: str
    synced: float
    all_ready: float
    half_ready: float
    p99_ready: float
    requests_per_cr: float
    writes_per_cr: dict[str, float]
    cpu_ms_per_cr: float
    peak_rss_mib: float
    reconciles_per_cr: float | None = None  # Stencil's own counts; None for the others
    status_writes_per_cr: float | None = None

    @property
    def writes_total_per_cr(self) -> float:
        return sum(self.writes_per_cr.values())


def run(
    plane: converging.Plane,
    contender: Contender,
    workload: Workload,
    n: int,
    settle: float,
    timeout: float = TIMEOUT,
) -> Backlog:
    admin = plane.admin
    kro = contender.program == "kro"
    namespace = f"backlog-{contender.program}-{workload.name}-{n}"
    admin.request("POST", "/api/v1/namespaces", {"metadata": {"name": namespace}})
    kubeconfig = converging.contender_kubeconfig(plane)
    log = plane.scratch / f"{namespace}-{contender.label.replace(' ', '_')}.log"
    if kro:
        graph = start(contender, workload, kubeconfig, namespace, log)
        try:
            graph.wait_ready()
            converging.wait_for_kro_kind(admin, workload)
        finally:
            graph.stop()
    resource = admin.resource(
        KRO_GROUP if kro else workload.api_version, workload.kro_kind if kro else workload.kind
    )
    # 1. The backlog, with nobody to converge it.
    watch = converging.Readiness(admin, resource, namespace)
    converging.create(admin, [workload.parent(i, namespace, kro=kro) for i in range(n)])
    requests_before, writes_before = dispatched_requests(admin, converging.FLOW_SCHEMA), write_requests(admin)
    # 2. The contender starts.
    running = start(contender, workload, kubeconfig, namespace, log, n)
    try:
        synced = running.wait_ready(timeout) - running.started_at
        watch.wait(n, timeout, running)
        ready_at = sorted(at - running.started_at for at in watch.ready_at.values())
        # 3. What it cost.
        time.sleep(settle)
        requests = dispatched_requests(admin, converging.FLOW_SCHEMA) - requests_before
        writes = workload.contender_writes(write_requests(admin) - writes_before, kro=kro)
        rss, cpu = running.peak_rss_mib(), running.cpu_seconds()
        reconciles, status_writes = per(running.own_counts(), n)
        # The parents go while the contender runs: kro holds a finalizer on each of its instances.
        converging.delete_parents(admin, resource, namespace)
    finally:
        watch.stop()
        running.stop()
    converging.delete_namespace(admin, namespace)
    return Backlog(
        workload=workload.name,
        n=n,
        contender=contender.label,
        synced=synced,
        all_ready=ready_at[-1],
        half_ready=_quantile(ready_at, 0.5),
        p99_ready=_quantile(ready_at, 0.99),
        requests_per_cr=requests / n,
        writes_per_cr={key: value / n for key, value in sorted(writes.items())},
        cpu_ms_per_cr=cpu * 1000 / n,
        peak_rss_mib=rss,
        reconciles_per_cr=reconciles,
        status_writes_per_cr=status_writes,
    )


def _quantile(ordered: list[float], q: float) -> float:
    """The time by which the fraction ``q`` of the parents were Ready."""
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]
