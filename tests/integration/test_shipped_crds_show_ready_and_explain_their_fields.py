"""Every CRD the project ships, as the API server serves it, shows Ready, its reason and the age in
``kubectl get`` (the Table the server makes from its printer columns), and describes each field
of its spec and status, which ``kubectl explain`` prints (the server's OpenAPI v3)."""

from __future__ import annotations

import subprocess
from typing import Any

import pytest
from kubernetes import client, config

from engine.core.model import kinds
from engine.core.offline import admission
from engine.localcluster import binaries
from engine.runtime.cluster import transport
from engine.runtime.cluster.kube import Kube
from tests._deadlines import eventually
from tests.integration._engine import ROOT

# Those of crds/ and those the kinds under templates/ write from their schema:.
SHIPPED = admission.with_generated(ROOT / "crds", kinds.load_kinds(ROOT / "templates")[0].values())
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"


def served(crd: dict[str, Any]) -> tuple[str, str, str, str]:
    """The CRD's group, its (one) version, plural and kind."""
    spec = crd["spec"]
    return spec["group"], spec["versions"][0]["name"], spec["names"]["plural"], spec["names"]["kind"]


@pytest.fixture(scope="module")
def as_table(local_cluster: Any) -> Any:
    """GET a path as ``kubectl get`` does, asking for a Table (with the engine's own wire helpers,
    whose Accept header is JSON)."""
    configuration = client.Configuration()
    config.load_kube_config(str(local_cluster.kubeconfig), client_configuration=configuration)
    pool, token = transport.pool(configuration, 1), transport.Token(configuration)

    def get(path: str) -> dict[str, Any]:
        headers = {**transport.headers(token, None, None), "Accept": TABLE}

        def answered() -> Any:
            # A CRD just established answers 429 while its watch cache fills.
            response = pool.request("GET", path, headers=headers, retries=False)
            assert response.status in (200, 429), response.data
            return response if response.status == 200 else None

        table: dict[str, Any] = eventually(answered, interval=0.2, what=f"a Table of {path}").json()
        return table

    yield get
    pool.close()


def undescribed(schema: dict[str, Any], path: str) -> list[str]:
    """The fields under ``schema`` (an OpenAPI v3 schema, ``allOf`` and all) without a description."""
    found = []
    for part in schema.get("allOf", []):
        found += undescribed(part, path)
    for name, field in (schema.get("properties") or {}).items():
        if not field.get("description"):
            found.append(f"{path}.{name}")
        found += undescribed(field, f"{path}.{name}")
    if isinstance(schema.get("items"), dict):
        found += undescribed(schema["items"], f"{path}[]")
    return found


@pytest.mark.parametrize("crd", SHIPPED, ids=[crd["metadata"]["name"] for crd in SHIPPED])
def test_kubectl_get_shows_ready_its_reason_and_the_age(
    crd: dict[str, Any], crds_installed: list[str], as_table: Any
) -> None:
    group, version, plural, _ = served(crd)

    table = as_table(f"/apis/{group}/{version}/{plural}")

    columns = [(c["name"], c["type"]) for c in table["columnDefinitions"]]
    shown = [c for c in columns if c[0] in ("Ready", "Reason", "Age")]
    assert shown == [("Ready", "string"), ("Reason", "string"), ("Age", "date")], columns


@pytest.mark.parametrize("crd", SHIPPED, ids=[crd["metadata"]["name"] for crd in SHIPPED])
def test_kubectl_explain_describes_every_field_of_spec_and_status(
    crd: dict[str, Any], crds_installed: list[str], kube: Kube, local_cluster: Any
) -> None:
    group, version, plural, kind = served(crd)

    published = kube.request("GET", f"/openapi/v3/apis/{group}/{version}")
    schema = next(
        s
        for s in published["components"]["schemas"].values()
        if {"group": group, "version": version, "kind": kind} in s.get("x-kubernetes-group-version-kind", [])
    )
    assert undescribed(schema, kind) == []

    kubectl = binaries.ensure(["kubectl"])["kubectl"]
    explained = subprocess.run(
        [str(kubectl), "--kubeconfig", str(local_cluster.kubeconfig), "explain", f"{plural}.spec"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    said = " ".join(
        crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["description"].split()
    )
    assert said in " ".join(explained.split())
