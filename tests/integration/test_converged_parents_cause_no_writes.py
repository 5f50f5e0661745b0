"""Steady state costs the API server nothing: a resync and a restart send no write request.

Writes are counted by the API server itself, not by the engine.  The engine runs as a
ServiceAccount of its own, holding the RBAC ``stencil rbac`` derives for the kinds (in the
test's namespace, as the chart grants it with ``watchNamespace``), and that account is alone
in a FlowSchema matching its writes: every write verb (create, update, patch and so apply,
delete, deletecollection) on any resource.  Priority and fairness counts the requests a
schema dispatched (``apiserver_flowcontrol_dispatched_requests_total``), before
authorization, so the schema's count is every write the engine sent: children, the parents'
status, the parents themselves (a finalizer), Events, refused or not.  Its reads fall to the
cluster's own schemas, uncounted.
"""

from __future__ import annotations

import contextlib
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from engine.core.model import errors, kinds
from engine.core.offline import admission, rbac
from engine.runtime.cluster.kube import Kube, Resource
from engine.runtime.telemetry.observability import Metrics
from engine.testing import (
    account_flow_schema,
    dispatched_requests,
    service_account_token,
    token_kubeconfig,
    write_requests,
)
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
ACCOUNT = "stencil"
RESYNC = 1.0
# The observation window: long enough for every parent to be resynced from the cache
# several times.  It opens only once convergence is over (see below).
QUIET_WINDOW = 4 * RESYNC


@contextlib.contextmanager
def engine_account(
    kube: Kube, namespace: str, admin_kubeconfig: Path, path: Path
) -> Iterator[tuple[Kube, Callable[[], int]]]:
    """A client authenticating as the engine's ServiceAccount, and the count of its writes."""
    templates, crds = ROOT / "templates", ROOT / "crds"
    loaded, broken = kinds.load_kinds(templates)
    assert not broken, broken
    rules = rbac.derive_rules(
        loaded.values(),
        rbac.offline_resources(crds, loaded.values()),
        admission.OfflineCrds.read(crds, loaded.values()).defaulted,
    )
    kube.request("POST", f"/api/v1/namespaces/{namespace}/serviceaccounts", {"metadata": {"name": ACCOUNT}})
    kube.apply(rbac.role(rules, ACCOUNT, namespace))
    kube.apply(
        {
            "apiVersion": rbac.RBAC_API_VERSION,
            "kind": "RoleBinding",
            "metadata": {"name": ACCOUNT, "namespace": namespace},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": ACCOUNT},
            "subjects": [{"kind": "ServiceAccount", "name": ACCOUNT, "namespace": namespace}],
        }
    )
    writes = f"{namespace}-writes"
    kube.apply(account_flow_schema(writes, ACCOUNT, namespace, writes_only=True))
    try:
        token = service_account_token(kube, namespace, ACCOUNT)
        with contextlib.closing(
            Kube.from_kubeconfig(str(token_kubeconfig(admin_kubeconfig, token, path)))
        ) as client:
            yield client, lambda: dispatched_requests(kube, writes)
    finally:
        with contextlib.suppress(errors.NotFound):
            kube.request("DELETE", f"/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas/{writes}")


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


def on_its_revision(kube: Kube, dws: Resource, name: str, namespace: str) -> Callable[[], bool]:
    """Whether the parent's status records the kind's revision it is on.  A parent created before
    the engine kept the kind's first revision converges without it and has it recorded by a later
    status write, one more step of convergence: beside other work, it came in the window."""

    def probe() -> bool:
        return bool(((kube.get(dws, name, namespace) or {}).get("status") or {}).get("kindRevision"))

    return probe


def parent(i: int) -> dict[str, Any]:
    return {
        "apiVersion": "operator.wujiuye.com/v1beta1",
        "kind": "DeployWebService",
        "metadata": {"name": f"quiet-{i}"},
        "spec": {"image": "nginx:1.27", "replicas": 1, "exposed_port": 80},
    }


def assert_no_writes(kube: Kube, writes: Callable[[], int], before: int, all_before: Counter[str]) -> None:
    """The engine sent no write since ``before``; if it did, the failure also says what the API
    server served meanwhile by verb and resource (anyone's, the controllers' too: the FlowSchema's
    count has no verb)."""
    sent = writes() - before
    assert sent == 0, (
        f"{sent} writes by the engine; the API server served {write_requests(kube) - all_before}"
    )


def test_resync_and_restart_send_no_writes(
    kube: Kube, namespace: str, dws: Resource, local_cluster: Any, tmp_path: Path
) -> None:
    account = engine_account(kube, namespace, local_cluster.kubeconfig, tmp_path / "engine.kubeconfig")
    with account as (as_engine, writes):
        converged_then_resynced(kube, as_engine, writes, namespace, dws)
        before, all_before = writes(), write_requests(kube)
        metrics = Metrics()
        with running_engine(as_engine, ROOT / "templates", namespace, metrics=metrics) as restarted:
            # The first listing queues each parent once: PARENTS reconciles run to the end are the
            # first reconcile of every one, and once the engine is idle it has nothing left to do.
            eventually(restarted.synced, what="caches to sync after the restart")
            eventually(lambda: reconciles(metrics) >= PARENTS, what="the first reconcile of every parent")
            eventually(
                settled(lambda: idle(restarted), lambda: (writes(), dict(restarted.counters))),
                what="the restarted engine to be idle",
            )
            assert restarted.counters == {}
        assert_no_writes(kube, writes, before, all_before)


def converged_then_resynced(
    kube: Kube, as_engine: Kube, writes: Callable[[], int], namespace: str, dws: Resource
) -> None:
    """The parents converge under an engine resyncing every second, which then writes nothing."""
    metrics = Metrics()
    with running_engine(as_engine, ROOT / "templates", namespace, resync=RESYNC, metrics=metrics) as engine:
        manifests.apply_all(kube, [parent(i) for i in range(PARENTS)], namespace)
        for i in range(PARENTS):
            eventually(
                condition_is(kube, dws, f"quiet-{i}", namespace, "Ready", "True"),
                timeout=120,
                what=f"quiet-{i} Ready",
            )
            eventually(rolled_out(kube, dws, f"quiet-{i}", namespace), what=f"quiet-{i} rolled out")
            eventually(on_its_revision(kube, dws, f"quiet-{i}", namespace), what=f"quiet-{i}'s revision")
        eventually(
            settled(lambda: idle(engine), lambda: (writes(), dict(engine.counters))),
            what="the last events of convergence to drain",
        )
        before, all_before = writes(), write_requests(kube)
        # The count is live: convergence itself was counted (so a zero below means something):
        # each parent's Deployment, Service and status at least.
        assert before >= 3 * PARENTS
        engine_before = dict(engine.counters)
        reconciled = reconciles(metrics)
        time.sleep(QUIET_WINDOW)  # the observation window: resyncs of every parent from the cache
        assert_no_writes(kube, writes, before, all_before)
        assert engine.counters == engine_before
        assert reconciles(metrics) - reconciled >= PARENTS  # the window did hold resyncs
    print(f"{before} writes to converge {PARENTS} parents, none in {QUIET_WINDOW:.0f} s of resyncs")
