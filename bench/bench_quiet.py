"""A converged engine costs the API server nothing: 100 DeployWebServices and 100 Networks.

Starts its own plane (etcd, kube-apiserver, controller-manager, scheduler, one kwok
node) and runs the engine in this process as a ServiceAccount with a FlowSchema of its
own, so the API server's priority-and-fairness counter
(``apiserver_flowcontrol_dispatched_requests_total``) counts every request the engine
makes — reads, lists and watches included — apart from everyone else's.  Once every
parent is Ready it prints:

- the requests the engine sent during a quiet window (default 60 s), by verb as the
  API server counts them (``apiserver_request_total`` has no user label; the engine's
  FlowSchema total is the witness, the verbs only say what they were);
- then, for a restart of the engine on the converged set, its requests and writes: the
  lists and watches that refill its caches, and no write at all.

The engine here runs without leader election; with it, add one Lease renewal every
``--leader-elect-retry-period`` (2 s by default) to the quiet window.

    python bench/bench_quiet.py [PARENTS_PER_KIND] [QUIET_SECONDS]   # 100 60
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import accounts

from engine.localcluster.plane import LocalCluster
from engine.runtime.cluster.kube import Kube
from engine.runtime.serving import manager
from engine.testing import dispatched_requests, write_requests
from engine.tools import manifests

ROOT = Path(__file__).resolve().parents[1]
NAMESPACE = "quiet"
ACCOUNT = "stencil-bench"
FLOW_SCHEMA = "stencil-bench"
# Writes only the engine makes here: its children's creates, claims and applies, and the
# parents' status (the controllers write Deployments' status with PUT, pods, and events).
ENGINE_WRITES = {
    f"{verb} {resource}"
    for verb in ("POST", "PATCH", "APPLY")
    for resource in ("deployments", "services", "configmaps", "deploywebservice/status", "networks/status")
}


def parents(n: int) -> list[dict[str, Any]]:
    web = [
        {
            "apiVersion": "operator.wujiuye.com/v1beta1",
            "kind": "DeployWebService",
            "metadata": {"name": f"web-{i:03d}"},
            "spec": {"image": "nginx:1.27", "replicas": 1, "exposed_port": 8080},
        }
        for i in range(n)
    ]
    nets = [
        {
            "apiVersion": "samplecrd.k8s.io/v1",
            "kind": "Network",
            "metadata": {"name": f"net-{i:03d}"},
            "spec": {"cidr": f"10.{i // 256}.{i % 256}.0/24", "gateway": f"10.{i // 256}.{i % 256}.1"},
        }
        for i in range(n)
    ]
    return web + nets


def engine_account(admin: Kube, kubeconfig: Path, directory: Path) -> Kube:
    accounts.create_account(admin, NAMESPACE, ACCOUNT, FLOW_SCHEMA)
    path = accounts.account_kubeconfig(admin, kubeconfig, NAMESPACE, ACCOUNT, directory / "engine.kubeconfig")
    return Kube.from_kubeconfig(str(path))


def ready(kube: Kube, api_version: str, kind: str) -> int:
    items, _ = kube.list(kube.resource(api_version, kind), NAMESPACE)
    return sum(
        1
        for item in items
        for c in (item.get("status") or {}).get("conditions") or []
        if c.get("type") == "Ready" and c.get("status") == "True"
    )


def settled(engine: manager.Engine) -> bool:
    return all(c.queue.depth == 0 and c.queue.processing() == 0 for c in engine.workers.values())


def wait(what: str, probe: Any, timeout: float = 600) -> None:
    deadline = time.monotonic() + timeout
    while not probe():
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {what}")
        time.sleep(0.5)


def main(n: int, quiet: float) -> None:
    with LocalCluster(nodes=1) as cluster, tempfile.TemporaryDirectory() as scratch:
        admin = Kube.from_kubeconfig(str(cluster.kubeconfig))
        manifests.install_project_crds(admin, ROOT)
        admin.request("POST", "/api/v1/namespaces", {"metadata": {"name": NAMESPACE}})
        kube = engine_account(admin, cluster.kubeconfig, Path(scratch))
        options = manager.Options(workers=8, resync=600, namespaces=(NAMESPACE,))
        engine = manager.Engine(kube, ROOT / "templates", options)
        engine.start()
        started = time.monotonic()
        manifests.apply_all(admin, parents(n), NAMESPACE)
        wait(
            f"{n} DeployWebServices and {n} Networks Ready",
            lambda: (
                ready(admin, "operator.wujiuye.com/v1beta1", "DeployWebService") == n
                and ready(admin, "samplecrd.k8s.io/v1", "Network") == n
            ),
        )
        converged = time.monotonic() - started
        wait("the engine's queues to empty", lambda: settled(engine))

        requests_before = dispatched_requests(admin, FLOW_SCHEMA)
        writes_before = write_requests(admin)
        time.sleep(quiet)  # the observation window
        requests_quiet = dispatched_requests(admin, FLOW_SCHEMA) - requests_before
        writes_quiet = engine_writes(write_requests(admin) - writes_before)
        engine.stop()

        restart_before = dispatched_requests(admin, FLOW_SCHEMA)
        writes_before = write_requests(admin)
        restarted = manager.Engine(kube, ROOT / "templates", options)
        restarted.start()
        wait("the restarted engine's caches", restarted.synced)
        wait("every parent reconciled once after the restart", lambda: settled(restarted))
        time.sleep(5)  # a write of the restart's reconciles, if any, would land in this window
        restart_requests = dispatched_requests(admin, FLOW_SCHEMA) - restart_before
        restart_writes = engine_writes(write_requests(admin) - writes_before)
        restarted.stop()

    rows = [
        ("all Ready after (s)", f"{converged:.1f}"),
        (f"engine requests in {quiet:.0f} s, converged", f"{requests_quiet}   (its FlowSchema's count)"),
        ("engine writes in that window", f"{sum(writes_quiet.values())}   {dict(writes_quiet)}"),
        ("restart: engine requests", f"{restart_requests}   (discovery, lists, watches)"),
        ("restart: engine writes", f"{sum(restart_writes.values())}   {dict(restart_writes)}"),
    ]
    print(f"\n{n} DeployWebServices and {n} Networks, one kwok node, 8 workers")
    for label, value in rows:
        print(f"  {label:<40} {value}")


def engine_writes(counts: Counter[str]) -> Counter[str]:
    return Counter({key: value for key, value in counts.items() if key in ENGINE_WRITES and value})


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100, float(sys.argv[2]) if len(sys.argv) > 2 else 60.0)
