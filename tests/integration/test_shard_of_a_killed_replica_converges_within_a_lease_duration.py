"""A replica killed with SIGKILL (no release): once its Lease expires its Networks go to the
others, and a spec change made to them right after the kill converges within the Lease
duration plus 5 s."""

from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import Any

from engine.runtime.kube import Kube
from engine.tools import manifests
from tests.integration._engine import eventually
from tests.integration._shards import (
    LEASE_DURATION,
    NETWORK,
    log_lines,
    network,
    owners,
    published,
    replica,
    wait_for_members,
)

PARENTS = 150
REPLICAS = ("shard-a", "shard-b", "shard-c")


def test_a_killed_replicas_networks_move_and_converge(
    kube: Kube, namespace: str, crds_installed: list[str], local_cluster: Any, tmp_path: Path
) -> None:
    networks = kube.resource(NETWORK, "Network")
    with contextlib.ExitStack() as stack:
        engines = {
            name: stack.enter_context(replica(local_cluster.kubeconfig, tmp_path, namespace, name))
            for name in REPLICAS
        }
        try:
            sharder = wait_for_members(list(engines.values()), len(REPLICAS))
            manifests.apply_all(kube, [network(f"net-{i}") for i in range(PARENTS)], namespace)
            eventually(
                lambda: len(published(kube, namespace)) == PARENTS, timeout=180, what="every ConfigMap"
            )
            labelled = owners(kube, networks, namespace)
            victim = next(name for name, engine in engines.items() if engine is not sharder)
            orphans = sorted(p for p, owner in labelled.items() if owner == victim)
            assert orphans

            engines[victim].kill()
            killed = time.monotonic()
            manifests.apply_all(kube, [network(p, cidr="10.1.0.0/16") for p in orphans], namespace)
            eventually(
                lambda: all(published(kube, namespace)[p] == "10.1.0.0/16" for p in orphans),
                timeout=LEASE_DURATION + 30,
                what="the killed replica's Networks to converge elsewhere",
            )
            converged = time.monotonic() - killed
            print(f"converged {len(orphans)} Networks {converged:.2f}s after the kill")
            assert converged <= LEASE_DURATION + 5

            after = owners(kube, networks, namespace)
            survivors = set(REPLICAS) - {victim}
            assert all(after[p] in survivors for p in orphans)
            assert {p: o for p, o in after.items() if p not in orphans} == {
                p: o for p, o in labelled.items() if p not in orphans
            }, "only the killed replica's Networks moved"
            moves = [
                line
                for line in log_lines(sharder)
                if line.get("message") == "assigned parent" and line.get("from") == victim
            ]
            assert sorted(line["key"].partition("/")[2] for line in moves) == orphans
            assert {line["reason"] for line in moves} == {"owner-gone"}
        except BaseException:
            for name, engine in engines.items():
                print(f"--- {name} ---\n{engine.output()[-20000:]}")
            raise
