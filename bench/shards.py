"""``python -m bench.shards``: what one replica costs, unsharded and as one of several shards.

On one local control plane (etcd and kube-apiserver; Networks need no nodes), for N Networks
(one ConfigMap child each):

1. **one replica, sharding off**: ``stencil run`` converges N Networks; its CPU seconds (from
   ``/proc``), its resident memory before and after, and the makespan (first create to the
   last ConfigMap holding its spec);
2. **R sharded replicas**: ``stencil run --shards`` R times; once the sharder sees them all, the
   same N Networks in a fresh namespace; per replica the same figures, plus the parents it
   holds (its ``stencil_shard_parents``), the children its caches select (those labelled with
   its name) and the children it applied.

From these come the figures of docs/scaling.md: CPU seconds per parent converged, memory per
cached parent and child, and each replica's share.  The replicas run on the same cores as the
API server, so the makespan says more about the machine than about Stencil; CPU seconds per
parent and memory per object are what carry over to a real cluster.

    python -m bench.shards                    # N = 3,000, R = 3
    python -m bench.shards --parents 300 --replicas 3
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

from bench.workloads import ROOT
from engine.core.decisions import sharding
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
    cpu_seconds: float  # while converging
    rss_idle_mib: float  # before any parent existed
    rss_mib: float  # once converged


@dataclass(frozen=True)
class Run:
    sharded: bool
    parents: int
    makespan: float
    replicas: list[Replica]
    plane_cpu_seconds: float  # etcd and kube-apiserver while converging
    writes: int  # write requests the API server served while converging (every client)


def cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime


def rss_mib(pid: int) -> float:
    return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE / 2**20


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


@contextmanager
def engine(
    kubeconfig: Path, namespace: str, name: str, logs: Path, sharded: bool
) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    port = free_port()
    args = [
        sys.executable, "-m", "engine.tools.cli", "run",
        "--kubeconfig", str(kubeconfig), "--templates", str(ROOT / "templates"),
        "--namespace", namespace, "--metrics-bind-address", f"127.0.0.1:{port}", "--no-metrics-secure",
        "--health-probe-bind-address", "0", "--log-format", "json",
        "--log-level", "WARNING",
    ]  # fmt: skip
    if sharded:
        args += ["--shards", "--shard-identity", name, "--leader-elect-namespace", namespace]
    with (logs / f"{name}.log").open("wb") as sink:
        process = subprocess.Popen(args, stdout=sink, stderr=subprocess.STDOUT)
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


def converged(kube: Kube, namespace: str, parents: int, cidr: str) -> bool:
    items, _ = kube.list(kube.resource("v1", "ConfigMap"), namespace, "app.kubernetes.io/managed-by=stencil")
    return sum(1 for c in items if (c.get("data") or {}).get("cidr") == cidr) == parents


def children_of(kube: Kube, namespace: str, replica: str | None) -> int:
    """The children a replica's caches select: Stencil's, labelled with its name if sharded."""
    selector = "app.kubernetes.io/managed-by=stencil"
    if replica is not None:
        selector += f",{sharding.OWNER_LABEL}={replica}"
    return len(kube.list(kube.resource("v1", "ConfigMap"), namespace, selector)[0])


def one_run(
    kube: Kube, plane: list[int], kubeconfig: Path, logs: Path, parents: int, replicas: int, sharded: bool
) -> Run:
    namespace = f"bench-shards-{'on' if sharded else 'off'}-{int(time.time())}"
    kube.request(
        "POST",
        "/api/v1/namespaces",
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}},
    )
    names = [f"shard-{i}" for i in range(replicas)]
    with ExitStack() as stack:
        running = {
            name: stack.enter_context(engine(kubeconfig, namespace, name, logs, sharded)) for name in names
        }
        wait(
            lambda: all(
                metric(port, "controller_runtime_max_concurrent_reconciles") for _, port in running.values()
            ),
            120,
            "the engines",
        )
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
        plane_before = sum(cpu(pid) for pid in plane)
        writes_before = sum(write_requests(kube).values())
        started = time.monotonic()
        cidr = "10.0.0.0/16"
        docs = [
            {"apiVersion": "samplecrd.k8s.io/v1", "kind": "Network", "metadata": {"name": f"net-{i}"},
             "spec": {"cidr": cidr, "gateway": "10.0.0.1"}}
            for i in range(parents)
        ]  # fmt: skip
        manifests.apply_all(kube, docs, namespace)
        wait(lambda: converged(kube, namespace, parents, cidr), 1800, "every ConfigMap")
        makespan = time.monotonic() - started
        time.sleep(3)  # the last status writes
        plane_cpu = sum(cpu(pid) for pid in plane) - plane_before
        writes = sum(write_requests(kube).values()) - writes_before
        results = [
            Replica(
                name,
                int(metric(port, "stencil_shard_parents")) if sharded else parents,
                children_of(kube, namespace, name if sharded else None),
                int(metric(port, "stencil_applies_total")),
                round(cpu(p.pid) - before[name], 2),
                round(idle[name], 1),
                round(rss_mib(p.pid), 1),
            )
            for name, (p, port) in running.items()
        ]
    return Run(sharded, parents, round(makespan, 1), results, round(plane_cpu, 1), writes)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parents", type=int, default=3000)
    parser.add_argument("--replicas", type=int, default=3)
    parser.add_argument("--out", type=Path, default=None, help="Also write the runs as JSON here.")
    options = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch, LocalCluster() as cluster:
        kube = Kube.from_kubeconfig(str(cluster.kubeconfig))
        manifests.install_crds(kube, ROOT / "crds")
        runs = [
            one_run(kube, cluster.pids, cluster.kubeconfig, Path(scratch), options.parents, 1, sharded=False),
            one_run(
                kube,
                cluster.pids,
                cluster.kubeconfig,
                Path(scratch),
                options.parents,
                options.replicas,
                sharded=True,
            ),
        ]
    for run in runs:
        print(
            f"{'sharded' if run.sharded else 'unsharded'}: {run.parents} Networks in {run.makespan} s; "
            f"{run.writes} writes ({run.writes / run.parents:.2f} per parent), "
            f"etcd + kube-apiserver {run.plane_cpu_seconds} CPU s "
            f"({1000 * run.plane_cpu_seconds / run.parents:.2f} ms/parent)"
        )
        for r in run.replicas:
            grown = r.rss_mib - r.rss_idle_mib
            print(
                f"  {r.name}: {r.parents} parents and {r.children} children held, {r.applied} applied, "
                f"{r.cpu_seconds} CPU s "
                f"({1000 * r.cpu_seconds / max(r.applied, 1):.2f} ms/parent), "
                f"RSS {r.rss_idle_mib} -> {r.rss_mib} MiB (+{grown:.1f})"
            )
    machine = {"cpus": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version()}
    print(json.dumps(machine))
    if options.out:
        options.out.write_text(json.dumps({"machine": machine, "runs": [asdict(r) for r in runs]}, indent=2))


if __name__ == "__main__":
    main()
