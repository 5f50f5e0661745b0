"""Convergence of N DeployWebServices on a local control plane, and what it costs the API server.

Starts its own plane (etcd, kube-apiserver, controller-manager, scheduler, one
kwok node), runs the engine in this process, creates N parents at once and
waits until every one is Ready=True.  Prints the time to converge and the write
requests the API server counted (``apiserver_request_total``) per parent, by
verb and resource — Stencil's own (applies, status) and the cluster's reaction
(Deployment controller, scheduler, kwok) separately — then the cost of a
resync of the converged set, which should be zero writes.

    python bench/bench_converge.py [N] [KIND]   # N = 100, KIND = deploywebservice (or network)
"""

from __future__ import annotations

import resource
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.core.model import objects
from engine.localcluster.plane import LocalCluster
from engine.runtime.cluster.kube import Kube
from engine.runtime.serving import manager
from engine.testing import write_requests
from engine.tools import manifests

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Scenario:
    """A kind to converge: how to make its i-th parent, and which writes are Stencil's."""

    api_version: str
    kind: str
    plural: str
    spec: dict[str, Any]
    children: tuple[str, ...]  # resources of the children Stencil creates, claims and applies
    note: str

    def parent(self, i: int) -> dict[str, Any]:
        return {
            "apiVersion": self.api_version,
            "kind": self.kind,
            "metadata": {"name": f"bench-{i:04d}"},
            "spec": self.spec,
        }

    def stencil(self, key: str) -> bool:
        verb, _, resource = key.partition(" ")
        return (verb in ("POST", "PATCH", "APPLY") and resource in self.children) or (
            key == f"PATCH {self.plural}/status"
        )


SCENARIOS = {
    # A Deployment and a Service a parent: convergence waits on the Deployment and
    # ReplicaSet controllers, the scheduler and kwok.
    "deploywebservice": Scenario(
        "operator.wujiuye.com/v1beta1",
        "DeployWebService",
        "deploywebservice",
        {"image": "nginx:1.27", "replicas": 1, "exposed_port": 8080},
        ("deployments", "services"),
        "1 replica each on one kwok node",
    ),
    # One ConfigMap a parent, Ready as soon as it exists: the engine's own throughput.
    "network": Scenario(
        "samplecrd.k8s.io/v1",
        "Network",
        "networks",
        {"cidr": "192.168.0.0/16", "gateway": "192.168.0.1"},
        ("configmaps",),
        "one ConfigMap each",
    ),
}


def ready(obj: dict[str, Any]) -> bool:
    conditions = (obj.get("status") or {}).get("conditions") or []
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)


def main(n: int, scenario: Scenario) -> None:
    with LocalCluster(nodes=1) as cluster:
        kube = Kube.from_kubeconfig(str(cluster.kubeconfig))
        manifests.install_project_crds(kube, ROOT)
        parents = kube.resource(scenario.api_version, scenario.kind)
        namespace = "bench"
        kube.request("POST", "/api/v1/namespaces", {"metadata": {"name": namespace}})
        with tempfile.TemporaryDirectory():
            engine = manager.Engine(kube, ROOT / "templates", manager.Options(workers=8, resync=3600))
            engine.start()
            time.sleep(1)
            before = write_requests(kube)
            started = time.monotonic()
            manifests.apply_all(kube, [scenario.parent(i) for i in range(n)], namespace)
            created = time.monotonic() - started
            while True:
                items, _ = kube.list(parents, namespace)
                done = sum(1 for item in items if ready(item))
                if done == n:
                    break
                if time.monotonic() - started > 600:
                    raise SystemExit(f"only {done}/{n} Ready after 600 s")
                time.sleep(0.25)
            converged = time.monotonic() - started
            time.sleep(2)
            after = write_requests(kube)
            rss_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

            resync_before = write_requests(kube)
            resync_started = time.monotonic()
            for ctrl in engine.controllers.values():
                for obj in ctrl.parents.list():
                    ctrl.wakes.add(objects.key_of(obj))
            while any(c.queue.depth or c.queue.processing() for c in engine.workers.values()):
                time.sleep(0.05)
            resync_seconds = time.monotonic() - resync_started
            resync_after = write_requests(kube)
            engine.stop()

    delta = after - before
    # The benchmark itself creates the parents (APPLY of the parents' resource); Stencil applies
    # the children (creation included) and writes the parents' status.
    ours = {k: v for k, v in delta.items() if scenario.stencil(k)}
    print(f"\nConvergence of {n} {scenario.kind}s ({scenario.note}), 8 workers")
    print(f"  created all parents in     {created:7.2f} s")
    print(f"  all Ready=True after       {converged:7.2f} s   ({n / converged:.1f} parents/s)")
    print(f"  engine process max RSS     {rss_mib:7.1f} MiB (includes the test harness)")
    print("\nWrite requests counted by the API server, per parent:")
    print(f"  {'verb resource':<40} {'total':>7} {'per parent':>11}")
    for key, value in sorted(delta.items(), key=lambda kv: -kv[1]):
        if value:
            mark = "  <- Stencil" if key in ours else ""
            print(f"  {key:<40} {value:>7} {value / n:>11.2f}{mark}")
    stencil_total = sum(ours.values())
    print(f"  {'Stencil writes (children + status)':<40} {stencil_total:>7} {stencil_total / n:>11.2f}")
    resync_delta = resync_after - resync_before
    resync_ours = sum(v for k, v in resync_delta.items() if scenario.stencil(k))
    print("(Stencil also posts one event per created child: 'Created …'.)")
    print(f"\nResync of {n} converged parents: {resync_seconds:.2f} s, Stencil write requests: {resync_ours}")


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    main(count, SCENARIOS[sys.argv[2] if len(sys.argv) > 2 else "deploywebservice"])
