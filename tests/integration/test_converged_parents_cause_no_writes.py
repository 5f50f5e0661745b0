"""Steady state costs the API server nothing: a resync and a restart send no write request.

Writes are counted by the API server itself (``apiserver_request_total``), not by
the engine.  Only Stencil writes Deployments and Services here (server-side apply, verb
APPLY, creation included); the parents' status is written only by Stencil too.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from engine.runtime.kube import Kube, Resource
from engine.runtime.observability import Metrics
from engine.testing import write_requests
from engine.tools import manifests
from tests.integration._engine import (
    ROOT,
    condition_is,
    conditions,
    eventually,
    idle,
    running_engine,
    settled,
)

PARENTS = 5
KIND = "deploywebservice"
RESYNC = 1.0
# The observation window: long enough for every parent to be resynced from the cache
# several times.  It opens only once convergence is over (see below).
QUIET_WINDOW = 4 * RESYNC


def stencil_writes(kube: Kube) -> Counter[str]:
    """Write requests that only Stencil makes here: its children's writes, the parents' status."""
    return Counter(
        {
            key: value
            for key, value in write_requests(kube).items()
            if key.split(" ")[1] in ("deployments", "services", "deploywebservice/status")
            and key.split(" ")[0] in ("POST", "PATCH", "APPLY")
        }
    )


def reconciles(metrics: Metrics) -> float:
    """Reconciles that ran to the end, by the engine's own metrics."""
    done = metrics.value("controller_runtime_reconcile_total", controller=KIND, result="success")
    return done or 0.0


def rolled_out(kube: Kube, dws: Resource, name: str, namespace: str) -> Callable[[], bool]:
    """Whether the parent's Deployment has finished its rollout and the parent's status says so:
    its controller changes the Deployment no more, so nothing new is left to pass into the status."""

    def probe() -> bool:
        progressing = conditions(kube.get(dws, name, namespace)).get("DeploymentProgressing") or {}
        return progressing.get("reason") == "NewReplicaSetAvailable"

    return probe


def parent(i: int) -> dict[str, Any]:
    return {
        "apiVersion": "operator.wujiuye.com/v1beta1",
        "kind": "DeployWebService",
        "metadata": {"name": f"quiet-{i}"},
        "spec": {"image": "nginx:1.27", "replicas": 1, "exposed_port": 80},
    }


def test_resync_and_restart_send_no_writes(kube: Kube, namespace: str, dws: Resource) -> None:
    metrics = Metrics()
    with running_engine(kube, ROOT / "templates", namespace, resync=RESYNC, metrics=metrics) as engine:
        manifests.apply_all(kube, [parent(i) for i in range(PARENTS)], namespace)
        for i in range(PARENTS):
            eventually(
                condition_is(kube, dws, f"quiet-{i}", namespace, "Ready", "True"),
                timeout=120,
                what=f"quiet-{i} Ready",
            )
            eventually(rolled_out(kube, dws, f"quiet-{i}", namespace), what=f"quiet-{i} rolled out")
        eventually(
            settled(lambda: idle(engine), lambda: (stencil_writes(kube), dict(engine.counters))),
            what="the last events of convergence to drain",
        )
        before = stencil_writes(kube)
        # The count is live: convergence itself was counted (so a zero below means something).
        assert before["APPLY deployments"] >= PARENTS and before["PATCH deploywebservice/status"] >= PARENTS
        engine_before = dict(engine.counters)
        reconciled = reconciles(metrics)
        time.sleep(QUIET_WINDOW)  # the observation window: resyncs of every parent from the cache
        assert stencil_writes(kube) - before == Counter()
        assert engine.counters == engine_before
        assert reconciles(metrics) - reconciled >= PARENTS  # the window did hold resyncs

    before = stencil_writes(kube)
    metrics = Metrics()
    with running_engine(kube, ROOT / "templates", namespace, metrics=metrics) as restarted:
        # The first listing queues each parent once: PARENTS reconciles run to the end are the
        # first reconcile of every one, and once the engine is idle it has nothing left to do.
        eventually(restarted.synced, what="caches to sync after the restart")
        eventually(lambda: reconciles(metrics) >= PARENTS, what="the first reconcile of every parent")
        eventually(
            settled(lambda: idle(restarted), lambda: (stencil_writes(kube), dict(restarted.counters))),
            what="the restarted engine to be idle",
        )
        assert restarted.counters == {}
    assert stencil_writes(kube) - before == Counter()
