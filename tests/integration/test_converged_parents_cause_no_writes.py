"""Steady state costs the API server nothing: a resync and a restart send no write request.

Writes are counted by the API server itself (``apiserver_request_total``), not by
the engine.  Only Stencil creates, patches and applies Deployments and Services here
(a child is created, then its fields claimed by a patch, then server-side applied on
change: verb APPLY); the parents' status is written only by Stencil too.
"""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

from engine import manifests
from engine.kube import Kube, Resource
from engine.testing import write_requests
from tests.integration._engine import ROOT, condition_is, eventually, running_engine

PARENTS = 5


def stencil_writes(kube: Kube) -> Counter[str]:
    """Write requests that only Stencil makes here: its children's writes, the parents' status."""
    return Counter(
        {
            key: value
            for key, value in write_requests(kube).items()
            if key.split(" ")[1] in ("deployments", "services", "deploywebservices/status")
            and key.split(" ")[0] in ("POST", "PATCH", "APPLY")
        }
    )


def parent(i: int) -> dict[str, Any]:
    return {
        "apiVersion": "operator.wujiuye.com/v1beta1",
        "kind": "DeployWebService",
        "metadata": {"name": f"quiet-{i}"},
        "spec": {"image": "nginx:1.27", "replicas": 1, "exposed_port": 80},
    }


def test_resync_and_restart_send_no_writes(kube: Kube, namespace: str, dws: Resource) -> None:
    with running_engine(kube, ROOT / "templates", namespace, resync=1.0) as engine:
        manifests.apply_all(kube, [parent(i) for i in range(PARENTS)], namespace)
        for i in range(PARENTS):
            eventually(
                condition_is(kube, dws, f"quiet-{i}", namespace, "Ready", "True"),
                timeout=120,
                what=f"quiet-{i} Ready",
            )
        time.sleep(2)  # let the last events of convergence drain
        before = stencil_writes(kube)
        # The count is live: convergence itself was counted (so a zero below means something).
        assert before["POST deployments"] >= PARENTS and before["PATCH deploywebservices/status"] >= PARENTS
        engine_before = dict(engine.counters)
        time.sleep(4)  # four resyncs of every parent from the cache
        assert stencil_writes(kube) - before == Counter()
        assert engine.counters == engine_before

    before = stencil_writes(kube)
    with running_engine(kube, ROOT / "templates", namespace) as restarted:
        eventually(restarted.synced, what="caches to sync after the restart")
        eventually(
            lambda: all(c.queue.depth == 0 for c in restarted.controllers.values()) or None,
            what="the first reconcile of every parent",
        )
        time.sleep(3)
        assert restarted.counters == {}
    assert stencil_writes(kube) - before == Counter()
