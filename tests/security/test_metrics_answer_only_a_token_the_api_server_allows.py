"""/metrics of the engine the chart installs is no open door: over HTTPS, a request without a
token is 401, a ServiceAccount's token without the chart's metrics-reader role is 403, and one
bound to it gets the metrics.  The engine runs as the chart's own ServiceAccount, so its rights
to review tokens are the chart's, and the verdicts are the real API server's."""

from __future__ import annotations

import http.client
import ssl
import uuid
from pathlib import Path
from typing import Any

import yaml

from engine.runtime.cluster.kube import Kube
from engine.testing import service_account_token, token_kubeconfig
from tests.integration._engine import eventually
from tests.integration._process import chart_installed, engine_process, helm


def scrape(port: int, token: str | None) -> tuple[int, str]:
    context = ssl.create_default_context()
    context.check_hostname, context.verify_mode = False, ssl.CERT_NONE  # the engine's self-signed one
    connection = http.client.HTTPSConnection("127.0.0.1", port, context=context, timeout=10)
    connection.request("GET", "/metrics", headers={"Authorization": f"Bearer {token}"} if token else {})
    response = connection.getresponse()
    return response.status, response.read().decode()


def account(kube: Kube, namespace: str, name: str) -> str:
    """A new ServiceAccount's token."""
    body = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": name}}
    kube.request("POST", f"/api/v1/namespaces/{namespace}/serviceaccounts", body)
    return service_account_token(kube, namespace, name)


def may_scrape(kube: Kube, namespace: str, name: str) -> bool:
    review = {
        "apiVersion": "authorization.k8s.io/v1",
        "kind": "SubjectAccessReview",
        "spec": {
            "user": f"system:serviceaccount:{namespace}:{name}",
            "groups": [
                "system:serviceaccounts",
                f"system:serviceaccounts:{namespace}",
                "system:authenticated",
            ],
            "nonResourceAttributes": {"path": "/metrics", "verb": "get"},
        },
    }
    answer = kube.request("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", review)
    return bool(answer["status"].get("allowed"))


def test_scrapes_are_401_without_a_token_403_without_the_role_and_200_with_it(
    kube: Kube, namespace: str, local_cluster: Any, tmp_path: Path
) -> None:
    release = f"stencil-{uuid.uuid4().hex[:6]}"
    bindings = "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings"
    with chart_installed(local_cluster.kubeconfig, release, namespace, "replicaCount=0"):
        manifest = helm(local_cluster.kubeconfig, "get", "manifest", release, "--namespace", namespace)
        objects = [d for d in yaml.load_all(manifest, Loader=yaml.CSafeLoader) if d]
        (engine_account,) = (d["metadata"]["name"] for d in objects if d["kind"] == "ServiceAccount")
        (reader,) = (
            d["metadata"]["name"] for d in objects if d["metadata"]["name"].endswith("-metrics-reader")
        )
        token = service_account_token(kube, namespace, engine_account)
        config = token_kubeconfig(local_cluster.kubeconfig, token, tmp_path / "engine.kubeconfig")
        scraper, stranger = account(kube, namespace, "scraper"), account(kube, namespace, "stranger")
        binding = {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRoleBinding",
            "metadata": {"name": f"{release}-scraper"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": reader},
            "subjects": [{"kind": "ServiceAccount", "name": "scraper", "namespace": namespace}],
        }
        kube.request("POST", bindings, binding)
        empty = tmp_path / "no-kinds"
        empty.mkdir()
        try:
            with engine_process(
                config, tmp_path / "engine.log",
                "--templates", str(empty), "--namespace", namespace, "--metrics-secure",
            ) as engine:  # fmt: skip
                eventually(engine.ready, what="/readyz")
                # The API server's authorizer sees a new binding a moment later; the engine
                # remembers verdicts for a minute, so it is asked only once that moment is over.
                eventually(lambda: may_scrape(kube, namespace, "scraper"), what="RBAC to see the binding")

                assert scrape(engine.port, None)[0] == 401, engine.output()
                assert scrape(engine.port, "not-a-token")[0] == 401
                assert scrape(engine.port, stranger)[0] == 403
                status, text = scrape(engine.port, scraper)
                assert status == 200, engine.output()
                assert "# TYPE controller_runtime_reconcile_total counter" in text.splitlines()
        finally:
            kube.request("DELETE", f"{bindings}/{release}-scraper")
