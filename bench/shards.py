"""``python -m bench.shards``: what one replica costs, unsharded and as one of several shards.

On one local control plane (etcd and kube-apiserver; for DeployWebServices the controller
manager too, which gives a Deployment its status; no nodes: their Deployments ask for 0
replicas), for N parents of a workload (a Network has one ConfigMap child, a DeployWebService a
Deployment and a Service):

1. **one replica, sharding off**: ``stencil run`` converges N parents; its CPU seconds (from
   ``/proc``), its resident memory before and after (and its peak), and the makespan;
2. **R sharded replicas**: ``stencil run --shards`` R times, the same N parents in a fresh
   namespace; per replica the same figures, plus the parents it holds (its
   ``stencil_shard_parents``), the children its caches select (those labelled with its name)
   and the children it applied.

Two ways to meet the parents: by default the replicas start first (once the sharder sees them
all) and the parents are created while they run, and the makespan runs from the first create to
every parent reading Ready at its generation; with ``--backlog`` the N parents are all there,
unconverged, before any replica starts (an install on a busy cluster, an upgrade), and the
makespan runs from the replicas' start to every parent reading Ready at its generation, their
start-up included.  A backlog has no idle reading: a replica lists the parents as it starts.

From these come the figures of docs/scaling.md: CPU seconds per parent converged, memory per
cached parent and child, and each replica's share.  The replicas run on the same cores as the
API server, so the makespan says more about the machine than about Stencil; CPU seconds per
parent and memory per object are what carry over to a real cluster.

    python -m bench.shards                    # N = 3,000 Networks, R = 3
    python -m bench.shards --parents 300 --replicas 3
    python -m bench.shards --workload deploywebservice --backlog --parents 10000
    python -m bench.shards --in-a-pod    # replicas read a service account, as the chart's pods do
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from bench import converging, pods
from bench.workloads import ROOT, WORKLOADS, Workload
from engine.core.decisions.coordination import sharding
from engine.localcluster.plane import LocalCluster
from engine.runtime.cluster.kube import Kube
from engine.testing import write_requests
from engine.tools import manifests

TICKS = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")


@dataclass(frozen=True)
class Replica:
    name: str
    parents: int  # parents it held at the end
    children: int  # children its caches select: those labelled with its name (sharded), else all
    applied: int  # children it applied
    cpu_seconds: float  # while converging (from its start, with a backlog)
    rss_idle_mib: float | None  # before any parent existed (none with a backlog)
    rss_mib: float  # once converged
    rss_peak_mib: float  # the most it held, start-up included


@dataclass(frozen=True)
class Run:
    sharded: bool
    parents: int
    workload: str
    backlog: bool
    makespan: float
    replicas: list[Replica]
    plane_cpu_seconds: float  # etcd, kube-apiserver (and the controller manager) while converging
    writes: int  # write requests the API server served while converging (every client)


def cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime


def rss_mib(pid: int) -> float:
    return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE / 2**20


def peak_rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def metric(port: int, series: str) -> float:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as response:
            text = response.read().decode()
    except OSError:
        return 0.0
    return sum(
        float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line.split("{")[0].split(" ")[0] == series
    )


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass(frozen=True)
class Access:
    """How a replica reaches the plane: ``stencil`` as started, with its environment."""

    stencil: list[str]
    environ: dict[str, str]


def by_kubeconfig(kubeconfig: Path) -> Access:
    return Access([sys.executable, "-m", "engine.tools.cli", "run", "--kubeconfig", str(kubeconfig)], {})


def in_a_pod(kube: Kube, kubeconfig: Path, folder: Path) -> Access:
    """As the chart's pod runs it: the service account's folder, no kubeconfig (``bench.pods``)."""
    environ = pods.as_in_a_pod(kube, kubeconfig, folder)
    return Access([sys.executable, "-c", pods.STENCIL, str(folder), "run"], environ)


@contextmanager
def engine(
    access: Access, namespace: str, name: str, logs: Path, sharded: bool
) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    port = free_port()
    args = [
        *access.stencil, "--templates", str(ROOT / "templates"),
        "--namespace", namespace, "--metrics-bind-address", f"127.0.0.1:{port}", "--no-metrics-secure",
        "--health-probe-bind-address", "0", "--log-format", "json",
        "--log-level", "WARNING",
    ]  # fmt: skip
    if sharded:
        args += ["--shards", "--shard-identity", name, "--leader-elect-namespace", namespace]
    with (logs / f"{name}.log").open("wb") as sink:
        process = subprocess.Popen(args, stdout=sink, stderr=subprocess.STDOUT, env=access.environ or None)
    try:
        yield process, port
    finally:
        process.terminate()
        process.wait(60)


def wait(probe: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not probe():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        time.sleep(0.5)


def children_of(kube: Kube, workload: Workload, namespace: str, replica: str | None) -> int:
    """The children a replica's caches select: Stencil's, labelled with its name if sharded."""
    selector = "app.kubernetes.io/managed-by=stencil"
    if replica is not None:
        selector += f",{sharding.OWNER_LABEL}={replica}"
    resources = [kube.resource(*child) for child in CHILDREN[workload.name]]
    return sum(len(kube.list(resource, namespace, selector)[0]) for resource in resources)


# The children of each workload, as (apiVersion, kind).
CHILDREN = {
    "network": [("v1", "ConfigMap")],
    "deploywebservice": [("apps/v1", "Deployment"), ("v1", "Service")],
}
# Beside each workload's own spec: a DeployWebService asks for no pods, so no node is needed.
SPEC: dict[str, dict[str, Any]] = {"deploywebservice": {"replicas": 0}}
TIMEOUT = 3600.0
# Each DeployWebService has a NodePort Service, and both runs' Services stay: room for twice 30,000.
WIDE_SERVICES = ("--service-cluster-ip-range=10.96.0.0/12", "--service-node-port-range=1024-65535")


def parents_of(workload: Workload, namespace: str, parents: int) -> list[dict[str, Any]]:
    return [workload.parent(i, namespace, **SPEC.get(workload.name, {})) for i in range(parents)]


def _mark(kube: Kube, plane: list[int]) -> tuple[float, int, float]:
    """Where a run's figures start: the plane's CPU seconds, the writes served, the time."""
    return sum(cpu(pid) for pid in plane), sum(write_requests(kube).values()), time.monotonic()


def one_run(
    kube: Kube,
    plane: list[int],
    access: Access,
    logs: Path,
    workload: Workload,
    parents: int,
    replicas: int,
    *,
    sharded: bool,
    backlog: bool,
) -> Run:
    namespace = f"bench-shards-{workload.name}-{'on' if sharded else 'off'}-{int(time.time())}"
    kube.request(
        "POST",
        "/api/v1/namespaces",
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}},
    )
    names = [f"shard-{i}" for i in range(replicas)]
    readiness = converging.Readiness(kube, kube.resource(workload.api_version, workload.kind), namespace)
    idle: dict[str, float | None] = dict.fromkeys(names)
    with ExitStack() as stack:
        stack.callback(readiness.stop)
        if backlog:  # every parent there, unconverged, before any replica starts
            converging.create(kube, parents_of(workload, namespace, parents))
        plane_before, writes_before, started = _mark(kube, plane)  # a backlog: from the replicas' start
        running = {
            name: stack.enter_context(engine(access, namespace, name, logs, sharded)) for name in names
        }
        wait(
            lambda: all(
                metric(port, "controller_runtime_max_concurrent_reconciles") for _, port in running.values()
            ),
            TIMEOUT,
            "the engines",
        )
        before = dict.fromkeys(names, 0.0)
        if not backlog:
            if sharded:
                wait(
                    lambda: (
                        max(metric(port, "stencil_shard_members") for _, port in running.values()) == replicas
                    ),
                    120,
                    "every member",
                )
            time.sleep(2)  # let start-up settle before the idle readings
            idle = {name: rss_mib(p.pid) for name, (p, _) in running.items()}
            before = {name: cpu(p.pid) for name, (p, _) in running.items()}
            plane_before, writes_before, started = _mark(kube, plane)  # else from the first create
            converging.create(kube, parents_of(workload, namespace, parents))

        def all_ready() -> bool:
            for process, _ in running.values():
                if process.poll() is not None:
                    raise RuntimeError(f"a replica exited ({process.returncode}): see {logs}")
            return len(readiness.ready_at) >= parents

        wait(all_ready, TIMEOUT, f"every {workload.kind} Ready")
        makespan = time.monotonic() - started
        time.sleep(3)  # the last status writes
        plane_cpu = sum(cpu(pid) for pid in plane) - plane_before
        writes = sum(write_requests(kube).values()) - writes_before
        results = [
            Replica(
                name,
                int(metric(port, "stencil_shard_parents")) if sharded else parents,
                children_of(kube, workload, namespace, name if sharded else None),
                int(metric(port, "stencil_applies_total")),
                round(cpu(p.pid) - before[name], 2),
                _rounded(idle[name]),
                round(rss_mib(p.pid), 1),
                round(peak_rss_mib(p.pid), 1),
            )
            for name, (p, port) in running.items()
        ]
    return Run(
        sharded, parents, workload.name, backlog, round(makespan, 1), results, round(plane_cpu, 1), writes
    )


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parents", type=int, default=3000)
    parser.add_argument("--replicas", type=int, default=3)
    parser.add_argument("--workload", choices=sorted(CHILDREN), default="network")
    parser.add_argument("--backlog", action="store_true", help="The parents are there before the replicas.")
    parser.add_argument("--out", type=Path, default=None, help="Also write the runs as JSON here.")
    parser.add_argument(
        "--in-a-pod", action="store_true", help="Replicas read a service account, not a kubeconfig."
    )
    options = parser.parse_args(argv)
    workload = WORKLOADS[options.workload]
    web = workload.name == "deploywebservice"  # a Deployment's status is the controller manager's
    plane = LocalCluster(controllers=web, apiserver_args=WIDE_SERVICES if web else ())
    with tempfile.TemporaryDirectory() as scratch, plane as cluster:
        kube = Kube.from_kubeconfig(str(cluster.kubeconfig))
        manifests.install_project_crds(kube, ROOT)
        access = (
            in_a_pod(kube, cluster.kubeconfig, Path(scratch) / "serviceaccount")
            if options.in_a_pod
            else by_kubeconfig(cluster.kubeconfig)
        )
        runs = [
            one_run(
                kube,
                cluster.pids,
                access,
                Path(scratch),
                workload,
                options.parents,
                replicas,
                sharded=replicas > 1,
                backlog=options.backlog,
            )
            for replicas in (1, options.replicas)
        ]
    for run in runs:
        print(
            f"{'sharded' if run.sharded else 'unsharded'}: {run.parents} {workload.kind}s "
            f"{'(a backlog) ' if run.backlog else ''}in {run.makespan} s; "
            f"{run.writes} writes ({run.writes / run.parents:.2f} per parent), "
            f"the plane {run.plane_cpu_seconds} CPU s "
            f"({1000 * run.plane_cpu_seconds / run.parents:.2f} ms/parent)"
        )
        for r in run.replicas:
            idle = "" if r.rss_idle_mib is None else f"{r.rss_idle_mib} -> "
            print(
                f"  {r.name}: {r.parents} parents and {r.children} children held, {r.applied} applied, "
                f"{r.cpu_seconds} CPU s ({1000 * r.cpu_seconds / max(r.parents, 1):.2f} ms/parent), "
                f"RSS {idle}{r.rss_mib} MiB, peak {r.rss_peak_mib} MiB"
            )
        total = sum(r.rss_mib for r in run.replicas)
        print(f"  RSS in sum: {total:.1f} MiB")
    print(f"replicas' client: {'a service account, as in a pod' if options.in_a_pod else 'a kubeconfig'}")
    machine = {"cpus": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version()}
    print(json.dumps(machine))
    if options.out:
        options.out.write_text(
            json.dumps(
                {"machine": machine, "in_a_pod": options.in_a_pod, "runs": [asdict(r) for r in runs]},
                indent=2,
            )
        )


if __name__ == "__main__":
    main()
