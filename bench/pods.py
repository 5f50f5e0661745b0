"""Replicas started as in a pod: the service's two variables and a service-account folder.

A replica in a pod (the chart's) reads its service account, not a kubeconfig
(``engine.runtime.cluster.incluster``), and does not import the official client.  A benchmark that
starts replicas as processes on the local plane gives them the same: a cluster-admin
ServiceAccount's token and the plane's CA in a folder, the plane's address in
``KUBERNETES_SERVICE_HOST`` and ``KUBERNETES_SERVICE_PORT``, and no kubeconfig to find.
"""

from __future__ import annotations

import base64
import os
import urllib.parse
from pathlib import Path

import yaml

from engine.runtime.cluster.kube import Kube
from engine.testing import service_account_token

ACCOUNT = "bench-in-a-pod"
RBAC = "rbac.authorization.k8s.io"

# ``stencil`` with the service-account folder (its first argument) where a pod has it.
STENCIL = (
    "import sys; from pathlib import Path; from engine.runtime.cluster import incluster; "
    "incluster.ACCOUNT = Path(sys.argv.pop(1)); from engine.tools.cli import main; main()"
)


def as_in_a_pod(kube: Kube, kubeconfig: Path, folder: Path) -> dict[str, str]:
    """Fill ``folder`` as a pod's service-account folder; the environment of a process in the pod."""
    if kube.get(kube.resource("v1", "ServiceAccount"), ACCOUNT, "default") is None:
        kube.request("POST", "/api/v1/namespaces/default/serviceaccounts", {"metadata": {"name": ACCOUNT}})
        binding = {
            "apiVersion": f"{RBAC}/v1",
            "kind": "ClusterRoleBinding",
            "metadata": {"name": ACCOUNT},
            "roleRef": {"apiGroup": RBAC, "kind": "ClusterRole", "name": "cluster-admin"},
            "subjects": [{"kind": "ServiceAccount", "name": ACCOUNT, "namespace": "default"}],
        }
        kube.request("POST", f"/apis/{RBAC}/v1/clusterrolebindings", binding)
    (cluster,) = (c["cluster"] for c in yaml.safe_load(kubeconfig.read_text())["clusters"])
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "ca.crt").write_bytes(base64.b64decode(cluster["certificate-authority-data"]))
    (folder / "token").write_text(service_account_token(kube, "default", ACCOUNT, seconds=24 * 3600))
    server = urllib.parse.urlsplit(cluster["server"])
    environ = {k: v for k, v in os.environ.items() if k != "KUBECONFIG"}
    environ["HOME"] = str(folder)  # no ~/.kube/config to find
    environ["KUBERNETES_SERVICE_HOST"] = str(server.hostname)
    environ["KUBERNETES_SERVICE_PORT"] = str(server.port)
    return environ
