"""A ServiceAccount with a FlowSchema of its own, so the API server counts one client's requests apart.

``apiserver_request_total`` has no user label; priority and fairness does count by the
FlowSchema that matched (``apiserver_flowcontrol_dispatched_requests_total``), reads and
watches included.  A client given an account alone in a schema is therefore counted on its
own: the engine in ``bench_quiet.py``, and each contender of ``python -m bench``.  The
account is bound to ``cluster-admin``: what a client is allowed is not what is measured.
"""

from __future__ import annotations

from pathlib import Path

from engine.runtime.cluster.kube import Kube
from engine.testing import account_flow_schema, service_account_token, token_kubeconfig

ADMIN = "cluster-admin"


def create_account(admin: Kube, namespace: str, account: str, flow_schema: str) -> None:
    """The ServiceAccount ``namespace/account``, a cluster-admin, alone in ``flow_schema``."""
    admin.request("POST", f"/api/v1/namespaces/{namespace}/serviceaccounts", {"metadata": {"name": account}})
    admin.request(
        "POST",
        "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
        {
            "metadata": {"name": account},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": ADMIN},
            "subjects": [{"kind": "ServiceAccount", "name": account, "namespace": namespace}],
        },
    )
    admin.apply(account_flow_schema(flow_schema, account, namespace))


def account_kubeconfig(
    admin: Kube, admin_kubeconfig: Path, namespace: str, account: str, path: Path, seconds: int = 3600
) -> Path:
    """A kubeconfig at ``path`` that authenticates as the account, with a fresh token."""
    token = service_account_token(admin, namespace, account, seconds)
    return token_kubeconfig(admin_kubeconfig, token, path)
