"""A client configured as in a pod (``incluster``: the service's address, the account's CA and
token files) is the pod's ServiceAccount to the API server, and keeps up with a replaced token.

The server's own answer says who the client is: a SelfSubjectReview returns the user the
request was authenticated as.  The token file is then replaced by a token of another
ServiceAccount, as the kubelet replaces a projected token: a minute later on the configuration's
clock (and a second later, when the client asks it again) the requests carry the new one.
"""

from __future__ import annotations

import base64
import contextlib
import time
import urllib.parse
from pathlib import Path
from typing import Any

import yaml

from engine.runtime.cluster import incluster, transport
from engine.runtime.cluster.kube import Kube
from engine.testing import service_account_token

REVIEW = {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}


def who(kube: Kube) -> str:
    answer: dict[str, Any] = kube.request("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", REVIEW)
    return str(answer["status"]["userInfo"]["username"])


def test_a_pod_is_its_service_account_and_follows_its_token(
    kube: Kube, namespace: str, local_cluster: Any, tmp_path: Path
) -> None:
    for account in ("first", "second"):
        kube.request(
            "POST", f"/api/v1/namespaces/{namespace}/serviceaccounts", {"metadata": {"name": account}}
        )
    config = yaml.safe_load(Path(local_cluster.kubeconfig).read_text())
    (cluster,) = (c["cluster"] for c in config["clusters"])
    (tmp_path / "ca.crt").write_bytes(base64.b64decode(cluster["certificate-authority-data"]))
    (tmp_path / "token").write_text(service_account_token(kube, namespace, "first") + "\n")
    server = urllib.parse.urlsplit(cluster["server"])
    environ = {"KUBERNETES_SERVICE_HOST": str(server.hostname), "KUBERNETES_SERVICE_PORT": str(server.port)}
    now = [0.0]

    with contextlib.closing(Kube(incluster.load(environ, tmp_path, clock=lambda: now[0]))) as in_pod:
        assert who(in_pod) == f"system:serviceaccount:{namespace}:first"

        (tmp_path / "token").write_text(service_account_token(kube, namespace, "second"))
        now[0] += incluster.TOKEN_REREAD
        time.sleep(transport.TOKEN_RECHECK)  # the client asks its configuration at most once a second
        assert who(in_pod) == f"system:serviceaccount:{namespace}:second"
