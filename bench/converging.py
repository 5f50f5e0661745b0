"""One measured run: a contender converges N parents of a workload on a running plane.

The run has four phases, each measured from outside the contender so that no figure
depends on what the contender reports about itself:

1. **converge** — the contender is started and ready; N parents are created at once (8 at
   a time); a watch of the parents records when each first reads ``Ready=True`` at its
   generation.  Makespan is first create to last Ready; the requests are the API server's
   counts: every request of the contender's ServiceAccount (its own FlowSchema) and the
   writes by verb and resource (``apiserver_request_total``);
2. **resources** — the contender's peak RSS and CPU seconds, read from ``/proc``;
3. **idle** — nothing changes for ``idle`` seconds: the contender's requests in that window;
4. **restart** — the contender is stopped and started again on the converged set: its
   writes until ``settle`` seconds after it is ready again (a restart should write nothing);
5. **spec changes** — on the idle, converged set, the spec of ``CHANGES`` parents is
   changed one at a time: sending the change → the child shows it (``bench.latency``; the
   floor creates children once and never updates them, so it has no figure);
6. **paced** — ``PACED`` more parents are created at half the CR/s of phase 1: their
   create → Ready, what a user sees on a plane that is busy but not saturated.

Throughout, a watch of each parent's readiness child (``bench.latency.Children``) splits
create → Ready into the plane's part and the contender's: child ready → parent Ready.

Each run has a namespace of its own, deleted afterwards, so the runs do not see each
other's objects.
"""

from __future__ import annotations

import statistics
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench import accounts, latency
from bench.contenders import FLOORS, Contender, Running, per, start
from bench.workloads import KRO_GROUP, Workload
from engine.core.model import errors
from engine.core.model.language import documents
from engine.runtime.cluster.kube import Kube, Resource
from engine.runtime.cluster.watching import Informer
from engine.testing import dispatched_requests, write_requests

ACCOUNT = "bench-contender"
FLOW_SCHEMA = "bench-contender"
ACCOUNT_NAMESPACE = "bench-accounts"
CREATORS = 8  # the harness's own concurrency when creating parents
CONVERGE_TIMEOUT = 1800.0
CHANGES = 50  # spec changes timed one at a time (at most N)
PACED = 200  # parents created at half saturation (at most N / 2, at least 10)


@dataclass(frozen=True)
class Plane:
    """What every run needs of the plane: the admin client and where to write files."""

    admin: Kube
    admin_kubeconfig: Path
    scratch: Path

    @classmethod
    def prepare(cls, admin: Kube, admin_kubeconfig: Path, scratch: Path) -> Plane:
        admin.request("POST", "/api/v1/namespaces", {"metadata": {"name": ACCOUNT_NAMESPACE}})
        accounts.create_account(admin, ACCOUNT_NAMESPACE, ACCOUNT, FLOW_SCHEMA)
        return cls(admin, admin_kubeconfig, scratch)


@dataclass(frozen=True)
class Result:
    """What one run measured; times in seconds."""

    workload: str
    n: int
    contender: str
    makespan: float
    per_second: float
    requests_per_cr: float  # every request of the contender, reads and watches included
    writes_per_cr: dict[str, float]  # the contender's writes by "VERB resource"
    ready_p50: float  # a parent's create -> Ready
    ready_p99: float
    peak_rss_mib: float
    cpu_seconds: float
    idle_seconds: float
    idle_requests: int
    idle_writes: int
    restart_requests: int
    restart_writes: int
    lag_p50: float  # the parent's readiness child ready -> the parent Ready
    lag_p99: float
    change_p50: float | None  # spec change sent -> the child shows it (None: the floor)
    change_p99: float | None
    paced_rate: float  # CR/s of the paced phase: half of per_second
    paced_p50: float  # create -> Ready at that rate
    paced_p99: float
    reconciles_per_cr: float | None = None  # Stencil's own counts in phase 1; None for the others
    status_writes_per_cr: float | None = None
    change_reconciles: float | None = None  # Stencil's own counts per spec change (phase 5)
    change_status_writes: float | None = None
    paced_reconciles: float | None = None  # and per paced parent (phase 6)
    paced_status_writes: float | None = None

    @property
    def writes_total_per_cr(self) -> float:
        return sum(self.writes_per_cr.values())


def run(plane: Plane, contender: Contender, workload: Workload, n: int, idle: float, settle: float) -> Result:
    admin = plane.admin
    kro = contender.program == "kro"
    namespace = f"bench-{contender.program}-{workload.name}-{n}"
    admin.request("POST", "/api/v1/namespaces", {"metadata": {"name": namespace}})
    kubeconfig = contender_kubeconfig(plane)
    log = plane.scratch / f"{namespace}-{contender.label.replace(' ', '_')}.log"
    running = start(contender, workload, kubeconfig, namespace, log, n + paced_count(n))
    try:
        running.wait_ready()
        if kro:
            wait_for_kro_kind(admin, workload)
        resource = admin.resource(
            KRO_GROUP if kro else workload.api_version, workload.kro_kind if kro else workload.kind
        )
        watch = Readiness(admin, resource, namespace)
        children = latency.Children(admin, workload, namespace)
        # 1. Converge.
        requests_before, writes_before = dispatched_requests(admin, FLOW_SCHEMA), write_requests(admin)
        created = create(admin, [workload.parent(i, namespace, kro=kro) for i in range(n)])
        watch.wait(n, CONVERGE_TIMEOUT, running)
        time.sleep(settle)  # a write that follows Ready (there should be none) lands in the count
        requests = dispatched_requests(admin, FLOW_SCHEMA) - requests_before
        writes = workload.contender_writes(write_requests(admin) - writes_before, kro=kro)
        reconciles, status_writes = per(running.own_counts(), n)
        # 2. Resources.
        rss, cpu = running.peak_rss_mib(), running.cpu_seconds()
        # 3. Idle.
        idle_before, idle_writes_before = dispatched_requests(admin, FLOW_SCHEMA), write_requests(admin)
        time.sleep(idle)
        idle_requests = dispatched_requests(admin, FLOW_SCHEMA) - idle_before
        idle_writes = workload.contender_writes(write_requests(admin) - idle_writes_before, kro=kro)
        # 4. Restart.
        restart_before, restart_writes_before = dispatched_requests(admin, FLOW_SCHEMA), write_requests(admin)
        running.stop()
        running = start(contender, workload, kubeconfig, namespace, log, n + paced_count(n))
        running.wait_ready()
        time.sleep(settle)
        restart_requests = dispatched_requests(admin, FLOW_SCHEMA) - restart_before
        restart_writes = workload.contender_writes(write_requests(admin) - restart_writes_before, kro=kro)
        # 5. Spec changes, one at a time, each on the idle set.
        lag = latency.lags(watch.ready_at, children.ready_at)
        changes = None
        restarted = running.own_counts()
        changed: tuple[float | None, float | None] = (None, None)
        if contender.program not in FLOORS:
            names = sorted(created)[: min(n, CHANGES)]
            changes = latency.spec_changes(admin, resource, workload, namespace, names, children, watch)
            changed = per(running.own_counts(), len(names), restarted)
        before_paced = running.own_counts()
        # 6. Paced: half of the rate phase 1 reached.
        makespan = max(watch.ready_at.values()) - min(created.values())
        rate = n / makespan / 2
        more = [workload.parent(n + i, namespace, kro=kro) for i in range(paced_count(n))]
        paced = latency.paced(admin, more, rate, watch.ready_at, CONVERGE_TIMEOUT)
        time.sleep(settle)
        paced_counts = per(running.own_counts(), len(more), before_paced)
        children.stop()
        watch.stop()
        # The parents go while the contender runs: kro holds a finalizer on each of its instances.
        delete_parents(admin, resource, namespace)
    finally:
        running.stop()
    delete_namespace(admin, namespace)

    to_ready = sorted(watch.ready_at[name] - created[name] for name in created)
    return Result(
        workload=workload.name,
        n=n,
        contender=contender.label,
        makespan=makespan,
        per_second=n / makespan if makespan > 0 else float("inf"),
        requests_per_cr=requests / n,
        writes_per_cr={key: value / n for key, value in sorted(writes.items())},
        ready_p50=statistics.median(to_ready),
        ready_p99=_percentile(to_ready, 0.99),
        peak_rss_mib=rss,
        cpu_seconds=cpu,
        idle_seconds=idle,
        idle_requests=idle_requests,
        idle_writes=sum(idle_writes.values()),
        restart_requests=restart_requests,
        restart_writes=sum(restart_writes.values()),
        lag_p50=statistics.median(lag),
        lag_p99=_percentile(lag, 0.99),
        change_p50=statistics.median(changes) if changes else None,
        change_p99=_percentile(changes, 0.99) if changes else None,
        paced_rate=rate,
        paced_p50=statistics.median(paced),
        paced_p99=_percentile(paced, 0.99),
        reconciles_per_cr=reconciles,
        status_writes_per_cr=status_writes,
        change_reconciles=changed[0],
        change_status_writes=changed[1],
        paced_reconciles=paced_counts[0],
        paced_status_writes=paced_counts[1],
    )


def paced_count(n: int) -> int:
    """How many parents the paced phase adds to a run of ``n``."""
    return max(10, min(n // 2, PACED))


def contender_kubeconfig(plane: Plane) -> Path:
    """A kubeconfig of the benchmark's ServiceAccount, which every contender runs as."""
    return accounts.account_kubeconfig(
        plane.admin,
        plane.admin_kubeconfig,
        ACCOUNT_NAMESPACE,
        ACCOUNT,
        plane.scratch / "contender.kubeconfig",
        86400,
    )


class Readiness:
    """When each parent of a namespace first read Ready=True at its generation, and the latest
    generation it read Ready at."""

    def __init__(self, kube: Kube, resource: Resource, namespace: str) -> None:
        self.ready_at: dict[str, float] = {}
        self._generation: dict[str, int] = {}
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._informer = Informer(kube, resource, namespace=namespace, on_event=self._on_event)
        self._informer.start()
        self._informer.wait_for_sync(60)

    def _on_event(self, type_: str, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
        if type_ == "DELETED" or not ready_at_generation(obj):
            return
        now = time.monotonic()
        name = obj["metadata"]["name"]
        with self._changed:
            self.ready_at.setdefault(name, now)
            self._generation[name] = max(self._generation.get(name, 0), obj["metadata"].get("generation", 0))
            self._changed.notify_all()

    def wait_generation(self, name: str, generation: int, timeout: float) -> bool:
        """Wait until ``name`` reads Ready at ``generation`` or later; False after ``timeout``."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while self._generation.get(name, 0) < generation:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._changed.wait(left)
            return True

    def wait(self, n: int, timeout: float, running: Running) -> None:
        deadline = time.monotonic() + timeout
        with self._changed:
            while len(self.ready_at) < n:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"only {len(self.ready_at)}/{n} Ready after {timeout:.0f} s")
                self._changed.wait(1.0)
                running.alive()

    def stop(self) -> None:
        self._informer.stop()


def ready_at_generation(obj: dict[str, Any]) -> bool:
    """Ready=True, and about the parent's current generation where the status says which."""
    generation = obj["metadata"].get("generation")
    status = obj.get("status") or {}
    for condition in status.get("conditions") or ():
        if condition.get("type") == "Ready" and condition.get("status") == "True":
            seen = condition.get("observedGeneration", status.get("observedGeneration", generation))
            return bool(seen == generation)
    return False


def create(kube: Kube, parents: list[dict[str, Any]]) -> dict[str, float]:
    """Create every parent, ``CREATORS`` at a time; when each creation was sent."""
    created: dict[str, float] = {}

    def one(parent: dict[str, Any]) -> None:
        created[parent["metadata"]["name"]] = time.monotonic()
        kube.create(parent)

    with ThreadPoolExecutor(CREATORS) as pool:
        list(pool.map(one, parents))
    return created


def wait_for_kro_kind(admin: Kube, workload: Workload, timeout: float = 120.0) -> None:
    """kro serves an instance kind once its graph is Active and the CRD it made is established."""
    admin.apply(_rgd(workload))
    graphs = admin.resource("kro.run/v1alpha1", "ResourceGraphDefinition")
    deadline = time.monotonic() + timeout
    while True:
        graph = admin.get(graphs, _rgd(workload)["metadata"]["name"])
        if (graph or {}).get("status", {}).get("state") == "Active":
            try:
                admin.forget(KRO_GROUP)
                admin.resource(KRO_GROUP, workload.kro_kind)
                return
            except errors.NotFound:
                pass
        if time.monotonic() > deadline:
            raise TimeoutError(f"kro's graph for {workload.name} not Active after {timeout:.0f} s: {graph}")
        time.sleep(0.5)


def _rgd(workload: Workload) -> dict[str, Any]:
    (graph,) = documents.load_all(workload.rgd)
    return graph


def delete_parents(admin: Kube, resource: Resource, namespace: str, timeout: float = 900.0) -> None:
    """Delete every parent in ``namespace`` and wait until they are gone.  A collection of
    thousands takes the API server longer than its own request timeout, after which it closes
    the connection, or answers 504, while it goes on deleting: the request is made again until
    none is left."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            admin.request("DELETE", resource.path(namespace))
        except errors.Unreachable:
            pass  # it went on past its timeout: looked at below
        except errors.ApiError as error:
            if error.status != 504:
                raise
        if not admin.list(resource, namespace)[0]:
            return
        if time.monotonic() > deadline:
            raise TimeoutError(f"{resource.plural} in {namespace} still there after {timeout:.0f} s")
        time.sleep(5.0)


def delete_namespace(admin: Kube, namespace: str, timeout: float = 900.0) -> None:
    """Delete the run's namespace and wait until it is gone, so the next run starts on a quiet plane."""
    namespaces = admin.resource("v1", "Namespace")
    admin.delete(namespaces, namespace)
    deadline = time.monotonic() + timeout
    while admin.get(namespaces, namespace) is not None:
        if time.monotonic() > deadline:
            raise TimeoutError(f"namespace {namespace} still there after {timeout:.0f} s")
        time.sleep(1.0)


def _percentile(sorted_values: list[float], q: float) -> float:
    index = min(len(sorted_values) - 1, max(0, round(q * (len(sorted_values) - 1))))
    return sorted_values[index]
