"""A fourth replica joining three: it takes the Networks whose rendezvous choice it is among the
four (about a quarter: `test_shard_membership_change_moves_about_one_in_n_parents.py` checks the
spread), only those move, each handed over by its old owner (released, then assigned) and logged,
and at no point is a Network left without an owner once the move is over.  Each Network's
ConfigMap moves with it (its owner label follows the Network's), and the joiner, which caches only
its own children, finds them in its cache: it writes none."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.core.decisions.coordination import sharding
from engine.runtime.cluster.kube import Kube
from tests.integration._engine import eventually
from tests.integration._shards import (
    REPLICAS,
    converged,
    held,
    log_lines,
    network_resource,
    owners,
    rendezvous_owner,
    wait_for_members,
    writes,
)

PARENTS = 300
JOINER = "shard-d"


def test_the_joiner_takes_a_quarter_each_move_handed_over_and_logged(
    kube: Kube, namespace: str, crds_installed: list[str], local_cluster: Any, tmp_path: Path
) -> None:
    with converged(kube, local_cluster.kubeconfig, tmp_path, namespace, PARENTS) as (engines, sharder):
        before = owners(kube, namespace)
        joiner = engines.start(JOINER)
        wait_for_members([sharder], len(REPLICAS) + 1)

        def settled() -> dict[str, str | None] | None:
            items, _ = kube.list(network_resource(kube), namespace)
            if any(sharding.DRAIN_LABEL in sharding.labels_of(n) for n in items):
                return None
            now = owners(kube, namespace)
            return now if set(now.values()) == {*REPLICAS, JOINER} else None

        after = eventually(settled, what="the move to the joiner to be over")
        moved = sorted(p for p in after if after[p] != before[p])
        assert all(after[p] == JOINER for p in moved)
        assert None not in after.values()
        # Exactly those, however many in this test's namespace (75 on average, 99 in one seen).
        assert moved == [
            p for p in sorted(after) if rendezvous_owner(namespace, p, {*REPLICAS, JOINER}) == JOINER
        ]
        eventually(lambda: held(joiner) == len(moved), what="the joiner's cache to hold its share")

        # Every move: marked draining, released by its old owner, then assigned, each logged.
        lines = log_lines(sharder)
        drained = sorted(
            entry["key"].partition("/")[2] for entry in lines if entry.get("message") == "draining parent"
        )
        assigned = [
            entry
            for entry in lines
            if entry.get("message") == "assigned parent" and entry.get("to") == JOINER
        ]
        released = sorted(
            line["key"].partition("/")[2]
            for name in REPLICAS
            for line in log_lines(engines[name])
            if line.get("message") == "released parent"
        )
        assert drained == released == moved
        assert sorted(entry["key"].partition("/")[2] for entry in assigned) == moved
        assert {entry["reason"] for entry in assigned} == {"handed-over"}
        handovers = sharder.metric("stencil_shard_handover_seconds_count", controller="network")
        assert handovers == [float(len(moved))]

        # The children followed: each ConfigMap is labelled as its Network is, and the joiner
        # reconciled its Networks against their children in its cache, writing none.
        children, _ = kube.list(
            kube.resource("v1", "ConfigMap"), namespace, "app.kubernetes.io/managed-by=stencil"
        )
        labelled = {
            c["metadata"]["name"].removesuffix("-network"): sharding.labels_of(c).get(sharding.OWNER_LABEL)
            for c in children
        }
        assert labelled == after
        assert writes(joiner) == []
