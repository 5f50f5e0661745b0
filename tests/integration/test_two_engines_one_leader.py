"""Two ``stencil run --leader-elect`` processes on one API server: one reconciles, the other
stands by, and after a kill -9 of the leader the standby takes over once the Lease expires.

The timings are short so the test is quick: a 4 s Lease renewed every 0.5 s.

Both engines write as the field manager ``stencil``, so the children's ``managedFields`` cannot
say which wrote; each runs as a ServiceAccount of its own whose writes to Deployments and
Services the API server counts apart (``_writers``).
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import Any

from engine.core.model import errors
from engine.runtime.cluster.kube import Kube, Resource
from engine.testing import write_requests
from engine.tools import manifests
from tests.integration._engine import ROOT, condition_is, eventually, settled
from tests.integration._process import EngineProcess, engine_process
from tests.integration._writers import counted_writers, writes_of

LEASE = "stencil-leader"
LEASE_DURATION = 4.0
RETRY_PERIOD = 0.5
# After a kill -9 the standby must see the Lease unchanged for a whole duration on its own
# clock, and notices that at its next jittered poll (at most 2.2 retry periods); the rest
# is room for a loaded, shared machine.
TAKEOVER_MARGIN = 4.0
NAME = "web"
CONTROLLER = "deploywebservice"
# The observation window, opened once the leader is idle after a change: a second write
# of that change, by either engine, would land in it.
QUIET_WINDOW = 1.0


def parent(replicas: int) -> dict[str, Any]:
    return {
        "apiVersion": "operator.wujiuye.com/v1beta1",
        "kind": "DeployWebService",
        "metadata": {"name": NAME},
        "spec": {"image": "nginx:1.27", "replicas": replicas, "exposed_port": 80},
    }


def holder(kube: Kube, namespace: str) -> str:
    try:
        lease = kube.request("GET", f"/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases/{LEASE}")
    except errors.NotFound:
        return ""
    return str(lease["spec"].get("holderIdentity") or "")


def reconciles(engine: EngineProcess) -> float:
    found = engine.metric("controller_runtime_reconcile_total", controller=CONTROLLER)
    assert found, "the controller's reconcile series are declared at start, leader or not"
    return sum(found)


def idle(engine: EngineProcess) -> bool:
    """No key waits in the engine's queue and no reconcile runs, by its own /metrics."""
    depth = engine.metric("workqueue_depth", name=CONTROLLER)
    running = engine.metric("controller_runtime_active_workers", controller=CONTROLLER)
    return depth == [0.0] and running == [0.0]


def applies(kube: Kube) -> int:
    """Deployments server-side applied, as the API server counts them."""
    return write_requests(kube)["APPLY deployments"]


def wait_for_idle(kube: Kube, engine: EngineProcess) -> None:
    """Until ``engine`` is idle and neither its reconciles nor the Deployment applies still move."""
    eventually(
        settled(lambda: idle(engine), lambda: (applies(kube), reconciles(engine))),
        what="the engine to be idle",
    )


def leading(engine: EngineProcess) -> list[float]:
    return engine.metric("leader_election_master_status", name=LEASE)


def spec_managers(kube: Kube, deployments: Resource, namespace: str) -> set[str]:
    """Managers of the Deployment's main resource; the status subresource is the deployment controller's."""
    child = kube.request("GET", deployments.path(namespace, f"{NAME}-deployment"))
    return {m["manager"] for m in child["metadata"]["managedFields"] if not m.get("subresource")}


def test_one_of_two_engines_reconciles_and_the_other_takes_over_after_a_kill(
    kube: Kube, namespace: str, dws: Resource, local_cluster: Any, tmp_path: Path
) -> None:
    deployments = kube.resource("apps/v1", "Deployment")

    def replicas() -> int | None:
        obj = kube.get(deployments, f"{NAME}-deployment", namespace)
        return obj["spec"]["replicas"] if obj else None

    def args(identity: str) -> list[str]:
        return [
            "--templates", str(ROOT / "templates"),
            "--namespace", namespace,
            "--leader-elect",
            "--leader-elect-namespace", namespace,
            "--leader-elect-lease-name", LEASE,
            "--leader-elect-identity", identity,
            "--leader-elect-lease-duration", str(LEASE_DURATION),
            "--leader-elect-renew-deadline", "3",
            "--leader-elect-retry-period", str(RETRY_PERIOD),
        ]  # fmt: skip

    identities = ("engine-a", "engine-b")
    children = [("apps", "deployments"), ("", "services")]
    with contextlib.ExitStack() as stack:
        kubeconfigs = stack.enter_context(
            counted_writers(kube, local_cluster.kubeconfig, namespace, identities, children, tmp_path)
        )

        def writes(identity: str) -> int:
            return writes_of(kube, namespace, identity)

        engines = {
            identity: stack.enter_context(
                engine_process(kubeconfigs[identity], tmp_path / f"{identity}.log", *args(identity))
            )
            for identity in identities
        }
        try:
            for engine in engines.values():
                eventually(engine.ready, what="/readyz of both engines")
            leader_id = eventually(lambda: holder(kube, namespace), what="a leader")
            leader = engines[leader_id]
            (standby,) = (e for i, e in engines.items() if i != leader_id)
            eventually(lambda: leading(leader) == [1.0], what="the leader's master status")

            manifests.apply_all(kube, [parent(replicas=1)], namespace)
            eventually(condition_is(kube, dws, NAME, namespace, "Ready", "True"), what="Ready=True")

            # Only the leader did any work; the standby says it is a standby.
            eventually(lambda: reconciles(leader) >= 1, what="the leader's reconciles")
            assert reconciles(standby) == 0
            assert sum(standby.metric("stencil_applies_total")) == 0
            assert leading(standby) == [0.0]
            assert spec_managers(kube, deployments, namespace) == {"stencil"}
            # The API server's own count, by account: the children were written by the leader alone.
            (standby_id,) = (i for i in identities if i != leader_id)
            assert writes(leader_id) >= 1
            assert writes(standby_id) == 0

            # One change, one write, as the API server counts it: had the standby written
            # too, the Deployment would have been applied twice.
            wait_for_idle(kube, leader)
            before = applies(kube)
            leader_before = writes(leader_id)
            manifests.apply_all(kube, [parent(replicas=2)], namespace)
            eventually(lambda: replicas() == 2, what="the leader to follow spec.replicas")
            wait_for_idle(kube, leader)
            time.sleep(QUIET_WINDOW)  # the observation window
            assert applies(kube) - before == 1
            assert (writes(leader_id) - leader_before, writes(standby_id)) == (1, 0)

            leader.kill()
            killed = time.monotonic()
            eventually(
                lambda: leading(standby) == [1.0],
                timeout=LEASE_DURATION + TAKEOVER_MARGIN + 5,
                what="the standby to take over",
            )
            takeover = time.monotonic() - killed
            print(f"takeover after kill -9: {takeover:.2f}s")
            # Not before the Lease expired (its last renewal was at most one retry period
            # before the kill), and not much after.
            assert LEASE_DURATION - 2 * RETRY_PERIOD <= takeover <= LEASE_DURATION + TAKEOVER_MARGIN
            assert holder(kube, namespace) != leader_id

            manifests.apply_all(kube, [parent(replicas=3)], namespace)
            eventually(lambda: replicas() == 3, what="the new leader to follow spec.replicas")
            eventually(lambda: reconciles(standby) >= 1, what="the new leader's reconciles")
            assert spec_managers(kube, deployments, namespace) == {"stencil"}
            # Written by the new leader: the old one's count stopped when it was killed.
            old_leader_writes = writes(leader_id)
            assert writes(standby_id) >= 1
            assert writes(leader_id) == old_leader_writes == leader_before + 1
        except BaseException:
            for identity, engine in engines.items():
                print(f"--- {identity} ---\n{engine.output()}")
            raise
