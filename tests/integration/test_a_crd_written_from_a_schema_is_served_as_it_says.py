"""The CRD a kind.yaml schema writes is accepted by the real API server, which then serves its
descriptions (what `kubectl explain` reads), its printer columns and defaults, and refuses a CR
that breaks a bound or leaves out a required field."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine.core.model import errors, kinds
from engine.runtime.cluster.kube import Kube
from engine.tools import manifests
from tests._deadlines import eventually

KIND = kinds.load_kind(Path(__file__).resolve().parents[2] / "examples" / "webapp")
GROUP_VERSION = "examples.stencil.dev/v1"


def _webapp(name: str, spec: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": GROUP_VERSION, "kind": "WebApp", "metadata": {"name": name}, "spec": spec}


def _openapi(kube: Kube) -> dict[str, Any] | None:
    try:
        document: dict[str, Any] = kube.request("GET", f"/openapi/v3/apis/{GROUP_VERSION}")
    except errors.NotFound:
        return None
    return document


@pytest.fixture
def installed(kube: Kube) -> list[str]:
    return manifests.install_crds(kube, None, kinds_=[KIND])


def test_the_server_serves_what_the_schema_says(kube: Kube, namespace: str, installed: list[str]) -> None:
    assert installed == ["webapps.examples.stencil.dev"]
    served = kube.request("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/" + installed[0])
    version = served["spec"]["versions"][0]
    assert [c["name"] for c in version["additionalPrinterColumns"]] == ["Image", "Ready", "Reason", "Age"]
    assert version["subresources"] == {"status": {}}

    # What `kubectl explain webapp.spec.image` shows comes from the group's OpenAPI v3 document.
    # The server publishes it a moment after the CRD is Established.
    eventually(lambda: _openapi(kube) is not None, what="the group's OpenAPI v3 document")
    schemas = _openapi(kube)["components"]["schemas"]  # type: ignore[index]
    webapp = next(s for name, s in schemas.items() if name.endswith(".WebApp"))
    assert webapp["description"].startswith("A web application from an image")
    image = webapp["properties"]["spec"]["properties"]["image"]
    assert image["description"] == "The container image, e.g. nginx:1.27"

    path = f"/apis/{GROUP_VERSION}/namespaces/{namespace}/webapps"
    created = kube.request("POST", path, _webapp("shop", {"image": "nginx:1.27"}))
    assert created["spec"] == {"image": "nginx:1.27", "replicas": 1, "port": 8080, "tier": "frontend"}

    with pytest.raises(errors.Invalid) as beyond:
        kube.request("POST", path, _webapp("big", {"image": "nginx", "replicas": 21}))
    assert "spec.replicas" in beyond.value.message

    with pytest.raises(errors.Invalid) as missing:
        kube.request("POST", path, _webapp("bare", {"replicas": 2}))
    assert "spec.image" in missing.value.message

    with pytest.raises(errors.Invalid) as unknown:
        kube.request("POST", path, _webapp("odd", {"image": "nginx", "tier": "middle"}))
    assert "spec.tier" in unknown.value.message

    with pytest.raises(errors.Invalid) as long_name:
        kube.request("POST", path, _webapp("a" * 64, {"image": "nginx"}))
    assert "at most 63 characters" in long_name.value.message
