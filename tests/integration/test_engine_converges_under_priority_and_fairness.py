"""With API Priority and Fairness on and the server held to 7 seats, 300 Networks converge.

The server is limited as a small or busy control plane is (``--max-requests-inflight=5
--max-mutating-requests-inflight=2``); the engine authenticates as a ServiceAccount, so
its requests are classified and throttled like any controller's (an admin certificate is
in ``system:masters``, which priority and fairness exempts).  The Networks are there
before the engine starts, so its first lists are large ones.

In the second test the engine's requests go to a priority level of one seat that rejects
rather than queues: most of its requests come back as 429 with Retry-After, and the engine
must slow down to that pace, not stall in a loop of failing lists and watches.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from engine.localcluster import LocalCluster
from engine.runtime.cluster.kube import Kube
from engine.testing import service_account_token, token_kubeconfig
from engine.tools import manifests
from tests._deadlines import eventually
from tests.integration._engine import ROOT, running_engine

PARENTS = 300
NAMESPACE = "default"
ACCOUNT = "stencil-engine"


@pytest.fixture
def cluster() -> Iterator[LocalCluster]:
    limits = ["--max-requests-inflight=5", "--max-mutating-requests-inflight=2"]
    with LocalCluster(apiserver_args=limits) as own:
        yield own


def service_account_kube(admin: Kube, kubeconfig: Path, path: Path) -> Kube:
    """A client holding a token of a ServiceAccount bound to cluster-admin (RBAC is not what
    is tried here; the account only has to be classified as a workload, not exempt)."""
    admin.request("POST", f"/api/v1/namespaces/{NAMESPACE}/serviceaccounts", {"metadata": {"name": ACCOUNT}})
    role = {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cluster-admin"}
    admin.request(
        "POST",
        "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
        {
            "metadata": {"name": ACCOUNT},
            "roleRef": role,
            "subjects": [{"kind": "ServiceAccount", "name": ACCOUNT, "namespace": NAMESPACE}],
        },
    )
    token = service_account_token(admin, NAMESPACE, ACCOUNT)
    return Kube.from_kubeconfig(str(token_kubeconfig(kubeconfig, token, path)))


def network(i: int) -> dict[str, Any]:
    return {
        "apiVersion": "samplecrd.k8s.io/v1",
        "kind": "Network",
        "metadata": {"name": f"net-{i}", "namespace": NAMESPACE},
        "spec": {"cidr": f"10.{i // 256}.{i % 256}.0/24", "gateway": f"10.{i // 256}.{i % 256}.1"},
    }


def all_ready(admin: Kube) -> bool:
    items, _ = admin.list(admin.resource("samplecrd.k8s.io/v1", "Network"), NAMESPACE)
    ready = [
        obj
        for obj in items
        for c in (obj.get("status") or {}).get("conditions", [])
        if c["type"] == "Ready" and c["status"] == "True"
    ]
    return len(ready) == PARENTS


def converge(cluster: LocalCluster, tmp_path: Path, throttle: bool = False) -> float:
    """Seconds from the engine's start until every Network is Ready."""
    admin = Kube.from_kubeconfig(str(cluster.kubeconfig))
    manifests.install_project_crds(admin, ROOT)
    engine_kube = service_account_kube(admin, cluster.kubeconfig, tmp_path / "engine.kubeconfig")
    with contextlib.closing(admin), contextlib.closing(engine_kube):
        return _converge(admin, engine_kube, tmp_path, throttle)


def _converge(admin: Kube, engine_kube: Kube, tmp_path: Path, throttle: bool) -> float:
    if throttle:
        for obj in rejecting_level():
            admin.apply(obj)
    templates = tmp_path / "templates"
    templates.mkdir()
    (templates / "network").symlink_to(ROOT / "templates" / "network")
    # Waiting when the engine starts, as after an upgrade or a failover: its first lists are
    # large, which priority and fairness charges several seats for.
    with ThreadPoolExecutor(4) as pool:  # the admin is exempt: creating them is not the test
        list(pool.map(lambda i: admin.create(network(i)), range(PARENTS)))
    started = time.monotonic()
    with running_engine(engine_kube, templates, NAMESPACE, resync=600, workers=4):
        eventually(lambda: all_ready(admin), timeout=240, interval=2.0, what=f"{PARENTS} Networks Ready")
        return time.monotonic() - started


def rejecting_level() -> list[dict[str, Any]]:
    """A priority level of one seat that turns away what it cannot serve at once, and a
    FlowSchema sending the engine's account there."""
    api = "flowcontrol.apiserver.k8s.io/v1"
    account = {"name": ACCOUNT, "namespace": NAMESPACE}
    return [
        {
            "apiVersion": api,
            "kind": "PriorityLevelConfiguration",
            "metadata": {"name": ACCOUNT},
            "spec": {
                "type": "Limited",
                "limited": {
                    "nominalConcurrencyShares": 1,
                    "lendablePercent": 0,
                    "limitResponse": {"type": "Reject"},
                },
            },
        },
        {
            "apiVersion": api,
            "kind": "FlowSchema",
            "metadata": {"name": ACCOUNT},
            "spec": {
                "priorityLevelConfiguration": {"name": ACCOUNT},
                "matchingPrecedence": 500,
                "distinguisherMethod": {"type": "ByUser"},
                "rules": [
                    {
                        "subjects": [{"kind": "ServiceAccount", "serviceAccount": account}],
                        "resourceRules": [
                            {
                                "verbs": ["*"],
                                "apiGroups": ["*"],
                                "resources": ["*"],
                                "clusterScope": True,
                                "namespaces": ["*"],
                            }
                        ],
                        "nonResourceRules": [{"verbs": ["*"], "nonResourceURLs": ["*"]}],
                    }
                ],
            },
        },
    ]


def rejected(kube: Kube, level: str) -> int:
    prefix = "apiserver_flowcontrol_rejected_requests_total{"
    return sum(
        int(float(line.rsplit(" ", 1)[1]))
        for line in kube.metrics().splitlines()
        if line.startswith(prefix) and f'priority_level="{level}"' in line
    )


def test_three_hundred_networks_converge_within_seven_seats(cluster: LocalCluster, tmp_path: Path) -> None:
    took = converge(cluster, tmp_path)
    print(f"{PARENTS} Networks Ready {took:.1f} s after the engine started, within 7 seats")


def test_three_hundred_networks_converge_when_most_requests_are_turned_away(
    cluster: LocalCluster, tmp_path: Path
) -> None:
    took = converge(cluster, tmp_path, throttle=True)
    with contextlib.closing(Kube.from_kubeconfig(str(cluster.kubeconfig))) as admin:
        turned_away = rejected(admin, ACCOUNT)
    print(f"{PARENTS} Networks Ready {took:.1f} s after the engine started; {turned_away} requests got 429")
    assert turned_away > 0  # otherwise this test tried nothing
