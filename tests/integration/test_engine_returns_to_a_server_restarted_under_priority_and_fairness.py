"""An engine already running comes back to an API server killed and started again under a tight
priority-and-fairness budget, and says once that it could not get through and once that it is back.

The order matters: the engine is running as a ServiceAccount with the RBAC derived from all the
shipped kinds (about a dozen informers), its caches full, when kube-apiserver is killed and
started again with ``--max-requests-inflight=5 --max-mutating-requests-inflight=2``.  Every
informer's watch then breaks off, is refused while the server is away, and is queued and turned
away (429) by priority and fairness while the server is back: ServiceAccounts land in the
``workload-low`` level, whose share of these 7 seats may be lent away down to none, and which
gets seats only once it has shown demand for an adjustment period (10 s).  Then 300 Networks are
created in a new namespace, and must converge.

How this test watches matters too.  It reads with GETs (one seat each), never with a LIST of
every Network or ConfigMap: the server charges a LIST by the objects stored (a seat per 100),
and an exempt client (the admin) holding 6 of the 11 nominal seats in each 10 s period leaves
every non-exempt level at its floor, which for ``workload-low`` is 0 seats.  No ServiceAccount's
request is then served at all, by the server's own arithmetic, however the client behaves.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from engine.core.model import kinds
from engine.core.offline import admission, rbac
from engine.localcluster import LocalCluster
from engine.runtime.cluster.kube import Kube
from engine.testing import service_account_token, token_kubeconfig
from engine.tools import manifests
from tests._deadlines import eventually
from tests.integration._engine import ROOT, conditions, running_engine

PARENTS = 300
LIMITS = ["--max-requests-inflight=5", "--max-mutating-requests-inflight=2"]
CONVERGE_WITHIN = 60.0  # measured: about 20 s after the restart
ACCOUNT = "stencil-engine"
NAMESPACE = "default"
BEFORE, AFTER = "before-the-restart", "after-the-restart"


@pytest.fixture
def cluster() -> Iterator[LocalCluster]:
    """A cluster of its own: this test restarts its API server with other flags."""
    with LocalCluster() as own:
        yield own


def engine_kubeconfig(admin: Kube, cluster: LocalCluster, path: Path) -> Path:
    """A kubeconfig holding a token of a ServiceAccount bound to the ClusterRole derived from every
    shipped kind: what the chart would grant, classified as any workload is."""
    loaded, broken = kinds.load_kinds(ROOT / "templates")
    assert not broken, broken
    crds = ROOT / "crds"
    rules = rbac.derive_rules(
        loaded.values(),
        rbac.offline_resources(crds, loaded.values()),
        admission.OfflineCrds.read(crds, loaded.values()).defaulted,
    )
    admin.apply(rbac.clusterrole(rules, ACCOUNT))
    admin.request("POST", f"/api/v1/namespaces/{NAMESPACE}/serviceaccounts", {"metadata": {"name": ACCOUNT}})
    role = {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": ACCOUNT}
    subject = {"kind": "ServiceAccount", "name": ACCOUNT, "namespace": NAMESPACE}
    admin.apply(
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRoleBinding",
            "metadata": {"name": ACCOUNT},
            "roleRef": role,
            "subjects": [subject],
        }
    )
    token = service_account_token(admin, NAMESPACE, ACCOUNT)
    return token_kubeconfig(cluster.kubeconfig, token, path)


def network(namespace: str, i: int) -> dict[str, Any]:
    return {
        "apiVersion": "samplecrd.k8s.io/v1",
        "kind": "Network",
        "metadata": {"name": f"net-{i}", "namespace": namespace},
        "spec": {"cidr": f"10.{i // 256}.{i % 256}.0/24", "gateway": f"10.{i // 256}.{i % 256}.1"},
    }


def create_networks(admin: Kube, namespace: str) -> None:
    admin.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}})
    with ThreadPoolExecutor(4) as pool:  # the admin is exempt: creating them is not the test
        list(pool.map(lambda i: admin.create(network(namespace, i)), range(PARENTS)))


def converged(admin: Kube, namespace: str) -> Callable[[], bool]:
    """A probe, one GET at a time: true once every Network's ConfigMap exists and it is Ready."""
    configmaps = admin.resource("v1", "ConfigMap")
    networks = admin.resource("samplecrd.k8s.io/v1", "Network")
    waiting = [f"net-{i}" for i in range(PARENTS)]

    def probe() -> bool:
        waiting[:] = [name for name in waiting if admin.get(configmaps, f"{name}-network", namespace) is None]
        if waiting:
            return False
        ready = (conditions(admin.get(networks, f"net-{i}", namespace)).get("Ready") for i in range(PARENTS))
        return all(c is not None and c["status"] == "True" for c in ready)

    return probe


def throttled(admin: Kube) -> bool:
    """The server runs with the tight budget: ``workload-low`` has 3 seats of its own."""
    line = 'apiserver_flowcontrol_nominal_limit_seats{priority_level="workload-low"} '
    return any(row == line + "3" for row in admin.metrics().splitlines())


def test_a_running_engine_converges_after_its_server_is_restarted_into_a_tight_budget(
    cluster: LocalCluster, tmp_path: Path, caplog: pytest.LogCaptureFixture, connect: Any
) -> None:
    admin = connect(cluster.kubeconfig)
    manifests.install_project_crds(admin, ROOT)
    kube = connect(engine_kubeconfig(admin, cluster, tmp_path / "engine.kubeconfig"))
    with running_engine(kube, ROOT / "templates", None, resync=600, workers=4) as engine:
        create_networks(admin, BEFORE)
        eventually(converged(admin, BEFORE), interval=0.5, what=f"{PARENTS} Networks before")
        informers = len(engine.informers)
        assert informers >= 10  # every shipped kind's parents and children: a dozen watches

        with caplog.at_level(logging.WARNING, logger="engine.runtime.cluster.watching"):
            cluster.stop_apiserver(graceful=False)
            cluster.start_apiserver(LIMITS)
            back = time.monotonic()
            assert throttled(admin)
            create_networks(admin, AFTER)
            eventually(
                converged(admin, AFTER),
                timeout=CONVERGE_WITHIN,
                interval=1.0,
                what=f"{PARENTS} Networks Ready within {CONVERGE_WITHIN:.0f} s of the restart",
            )
            took = time.monotonic() - back
            said = [r.getMessage() for r in caplog.records]

    print(f"{PARENTS} Networks Ready {took:.1f} s after the API server came back throttled")
    last: dict[str, str] = {}  # what each informer said last, by its name
    for line in said:
        name, _, told = line.partition(": ")
        if told.startswith(("cannot ", "lists and watches get through again")):
            last[name] = told
    assert len(last) == informers, "\n".join(said)  # each informer said it could not get through
    assert all(told.startswith("lists and watches") for told in last.values()), "\n".join(said)  # and is back
    assert len(said) <= 5 * informers, "\n".join(said)  # once a reason, not once a retry
