"""``sharding.enabled`` in the chart: every replica runs with ``--shards`` named after its pod, and
the Role grants the replicas' own Leases and their listing, as ``rbac.namespace_rules`` says."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.core.offline import rbac
from engine.localcluster import binaries
from tests.unit.chart import test_chart_helm as chart


@pytest.fixture(scope="module")
def helm() -> Path:
    return binaries.ensure(["helm"])["helm"]


def test_sharded_replicas_get_shards_flags_and_member_lease_rules(helm: Path) -> None:
    documents = chart.render(helm, "replicaCount=3", "sharding.enabled=true")
    args = chart.container(documents)["args"]
    assert chart.flag(args, "--shards") == ""
    assert chart.flag(args, "--shard-identity") == "$(POD_NAME)"
    lease_name = chart.flag(args, "--leader-elect-lease-name")
    assert lease_name
    role = next(d for d in documents if d["kind"] == "Role")
    assert role["rules"] == rbac.namespace_rules(lease_name, sharded=True)


def test_unsharded_chart_has_no_shards_flag(helm: Path) -> None:
    args = chart.container(chart.render(helm, "replicaCount=3"))["args"]
    assert chart.flag(args, "--shards") is None
