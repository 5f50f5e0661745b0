"""Three ``stencil run --shards`` replicas and 300 Networks: every Network is reconciled by
exactly one replica, the one its owner label names, and each replica caches its share: the
Networks whose rendezvous choice it is, about a third.  How evenly the hash spreads parents is
checked apart
(``tests/unit/core/decisions/test_shard_membership_change_moves_about_one_in_n_parents.py``): 300
parents hashed over three members vary by about ±8 % (one standard deviation), so a share here is
exactly the computed one rather than within a tolerance; ``bench/shards.py`` measures ±15 % at
3,000.

All replicas write as the field manager ``stencil``, so ``managedFields`` cannot say which
wrote a child; each runs as a ServiceAccount of its own whose writes to ConfigMaps the API
server counts apart (``_writers``), and the count must match the share its owner labels give it.
"""

from __future__ import annotations

import contextlib
from collections import defaultdict
from pathlib import Path
from typing import Any

from engine.runtime.cluster.kube import Kube
from engine.testing import write_requests
from engine.tools import manifests
from tests._deadlines import eventually_all
from tests.integration._engine import eventually
from tests.integration._shards import (
    CONTROLLER,
    REPLICAS,
    held,
    network,
    owners,
    published,
    rendezvous_owner,
    replicas,
    reported,
    wait_for_members,
    writes,
)
from tests.integration._writers import counted_writers, writes_of

PARENTS = 300


def test_each_network_is_reconciled_by_its_owner_alone(
    kube: Kube, namespace: str, crds_installed: list[str], local_cluster: Any, tmp_path: Path
) -> None:
    with contextlib.ExitStack() as stack:
        kubeconfigs = stack.enter_context(
            counted_writers(
                kube, local_cluster.kubeconfig, namespace, REPLICAS, [("", "configmaps")], tmp_path
            )
        )
        engines = stack.enter_context(
            replicas(local_cluster.kubeconfig, tmp_path, namespace, REPLICAS, kubeconfigs=kubeconfigs)
        )
        wait_for_members(list(engines.values()), len(REPLICAS))
        before = write_requests(kube)["APPLY configmaps"]
        manifests.apply_all(kube, [network(f"net-{i}") for i in range(PARENTS)], namespace)
        eventually_all(lambda: len(published(kube, namespace)), PARENTS, what="ConfigMaps published")
        # What each replica says of its writes (its log, its counters) is read once it has said
        # it: a ConfigMap is visible before the log line of the reconcile that applied it.
        eventually_all(lambda: reported(kube, namespace), PARENTS, what="Networks Ready")
        labelled = eventually(
            lambda: (o := owners(kube, namespace)) and None not in o.values() and o,
            what="every Network labelled with an owner",
        )

        # Each replica wrote the children of its own Networks and of no other.
        written_by: dict[str, set[str]] = defaultdict(set)
        for name, engine in engines.items():
            for _, parent in writes(engine):
                written_by[parent].add(name)
        assert set(written_by) == set(labelled)
        assert all(written_by[p] == {labelled[p]} for p in labelled)
        # The per-replica counts add up to the total, as the API server counts the writes.
        applied = sum(sum(e.metric("stencil_applies_total", kind=CONTROLLER)) for e in engines.values())
        assert applied == PARENTS == write_requests(kube)["APPLY configmaps"] - before
        child = kube.get(kube.resource("v1", "ConfigMap"), "net-0-network", namespace)
        assert child is not None
        assert {m["manager"] for m in child["metadata"]["managedFields"]} == {"stencil"}

        # Each Network is labelled with its rendezvous choice; each replica caches its own share
        # and wrote one child for each Network of it, as the API server counts its account's writes.
        assert labelled == {p: rendezvous_owner(namespace, p, REPLICAS) for p in labelled}
        for name, engine in engines.items():
            share = sum(1 for owner in labelled.values() if owner == name)
            assert held(engine) == share
            assert writes_of(kube, namespace, name) == share, name
