"""Two engines serving the same kind: one holds it and writes, the other writes nothing and says
which engine holds it (log, Event on the kind's Lease, metrics); once the holder is stopped the
standby takes the kind at once (the Lease was released) and the parents keep converging."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from engine.core.decisions.coordination import holding
from engine.runtime.cluster.kube import Kube
from engine.tools import manifests
from tests.integration._engine import eventually
from tests.integration._holds import (
    LEASE_DURATION,
    NETWORK_LEASE,
    engine,
    holder,
    holds,
    kinds,
    lease_events,
    reconciles,
    said,
    writes,
)
from tests.integration._shards import network, published

PARENTS = 6
CONTROLLER = "network"


def test_one_engine_holds_a_kind_the_other_stands_by_and_takes_over_when_it_stops(
    kube: Kube, namespace: str, crds_installed: list[str], local_cluster: Any, tmp_path: Path
) -> None:
    templates = kinds(tmp_path / "kinds", "network")
    config = local_cluster.kubeconfig
    with engine(config, tmp_path, namespace, "engine-a", templates) as first:
        eventually(lambda: holds(first, NETWORK_LEASE) == [1.0], what="engine-a to hold the kind")
        with engine(config, tmp_path, namespace, "engine-b", templates) as second:
            eventually(lambda: holds(second, NETWORK_LEASE) == [0.0], what="engine-b to stand by")
            manifests.apply_all(kube, [network(f"net-{i}") for i in range(PARENTS)], namespace)
            eventually(lambda: len(published(kube, namespace)) == PARENTS, what="every ConfigMap")

            # One writer: the holder; the standby reconciled nothing and wrote nothing.
            assert holder(kube, namespace, NETWORK_LEASE) == "engine-a"
            assert writes(first, CONTROLLER) >= PARENTS
            assert (reconciles(second, CONTROLLER), writes(second, CONTROLLER)) == (0, 0)
            # The standby says which engine holds the kind: a log line and an Event on the Lease.
            standing = holding.standing_by("Network", "engine-a", "engine-b")
            assert any(line["message"] == standing for line in said(second, NETWORK_LEASE))
            eventually(
                lambda: any(e["message"] == standing for e in lease_events(kube, namespace, NETWORK_LEASE)),
                what="the standby's Event on the kind's Lease",
            )

            assert first.stop() == 0
            stopped = time.monotonic()
            eventually(
                lambda: holds(second, NETWORK_LEASE) == [1.0],
                timeout=LEASE_DURATION + 30,
                what="engine-b to take the kind over",
            )
            took = time.monotonic() - stopped
            print(f"engine-b took the kind {took:.2f}s after engine-a stopped")
            assert took <= LEASE_DURATION  # released on the way out: not left to expire
            assert holder(kube, namespace, NETWORK_LEASE) == "engine-b"

            manifests.apply_all(
                kube, [network(f"net-{i}", cidr="10.1.0.0/16") for i in range(PARENTS)], namespace
            )
            eventually(
                lambda: set(published(kube, namespace).values()) == {"10.1.0.0/16"},
                what="the parents to converge on engine-b",
            )
            # The count ticks as each reconcile returns, after its child is visible.
            eventually(lambda: reconciles(second, CONTROLLER) >= PARENTS, what="engine-b's reconciles")
            taking = holding.holding("Network", "engine-b")
            assert any(line["message"] == taking for line in said(second, NETWORK_LEASE))
