"""``stencil shards`` reads the member Leases and the owner labels: one row per replica, its Lease's
state, and how many parents of each kind it owns; unassigned parents on a row of their own."""

from __future__ import annotations

import datetime
from collections import Counter
from typing import Any

from click.testing import CliRunner

from engine.core.decisions.coordination import sharding
from engine.runtime.cluster.kube import Kube
from engine.tools import manifests
from engine.tools.cli import main
from tests.integration._engine import ROOT, eventually
from tests.integration._shards import NETWORK, network

OWNERS = ["shard-a", "shard-a", "shard-b", None]


def lease(identity: str, renewed: datetime.datetime) -> dict[str, Any]:
    return {
        "apiVersion": "coordination.k8s.io/v1",
        "kind": "Lease",
        "metadata": {"name": sharding.lease_name(identity), "labels": {sharding.LEASE_LABEL: "true"}},
        "spec": {
            "holderIdentity": identity,
            "leaseDurationSeconds": 15,
            "renewTime": renewed.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
        },
    }


def test_rows_per_replica_with_lease_state_and_owned_parents(
    kube: Kube, namespace: str, crds_installed: list[str], local_cluster: Any
) -> None:
    # It counts every Network in the cluster: those of tests before it go with their namespaces.
    networks = kube.resource(NETWORK, "Network")
    eventually(lambda: not kube.list(networks)[0], timeout=120, what="other tests' Networks gone")
    now = datetime.datetime.now(datetime.UTC)
    manifests.apply_all(
        kube, [lease("shard-a", now), lease("shard-b", now - datetime.timedelta(minutes=5))], namespace
    )
    for i, owner in enumerate(OWNERS):
        doc = network(f"net-{i}")
        if owner:
            doc["metadata"]["labels"] = {sharding.OWNER_LABEL: owner}
        manifests.apply_all(kube, [doc], namespace)

    result = CliRunner().invoke(
        main,
        ["shards", "--templates", str(ROOT / "templates"), "--kubeconfig", str(local_cluster.kubeconfig),
         "--namespace", namespace],
    )  # fmt: skip

    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    header = lines[0].split()
    column = header.index("NETWORK")
    rows = {line.split()[0]: line.split() for line in lines[1:]}
    expected = Counter(owner or "(unassigned)" for owner in OWNERS)
    assert {name: int(row[column]) for name, row in rows.items()} == expected
    assert rows["shard-a"][1] == "live"
    assert rows["shard-b"][1] == "expired"
