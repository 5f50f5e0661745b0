"""Network (seed 002) end to end: the seed's sample CR published as a ConfigMap, kept in step, validated."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.core.model import errors
from engine.runtime.cluster.kube import Kube, Resource
from engine.tools import manifests
from tests.integration._engine import ROOT, condition_is, conditions, eventually, running_engine

EXAMPLES = ROOT / "templates" / "network" / "examples"
NAME = "example-network"
CONFIG_MAP = f"{NAME}-network"


@pytest.fixture
def networks(kube: Kube, crds_installed: list[str]) -> Resource:
    return kube.resource("samplecrd.k8s.io/v1", "Network")


def sample(**spec: str) -> dict[str, Any]:
    """The seed's example-network.yaml, with ``spec`` fields overridden."""
    doc = next(d for d in manifests.read(manifests.yaml_files(EXAMPLES)) if d["metadata"]["name"] == NAME)
    return {**doc, "spec": {**doc["spec"], **spec}}


def published(kube: Kube, namespace: str, spec: dict[str, str]) -> dict[str, Any] | None:
    """The ConfigMap, once it holds exactly ``spec`` (both as fields and as JSON)."""
    config_map = kube.get(kube.resource("v1", "ConfigMap"), CONFIG_MAP, namespace)
    data = (config_map or {}).get("data") or {}
    fields = {"cidr": data.get("cidr"), "gateway": data.get("gateway")}
    if fields == spec and json.loads(data.get("network.json", "null")) == spec:
        return config_map
    return None


def test_sample_becomes_ready_with_its_owned_config_map(
    kube: Kube, namespace: str, networks: Resource
) -> None:
    with running_engine(kube, ROOT / "templates", namespace):
        uid = manifests.apply_all(kube, [sample()], namespace)[0]["metadata"]["uid"]
        ready = eventually(condition_is(kube, networks, NAME, namespace, "Ready", "True"), what="Ready=True")

    conds = conditions(ready)
    assert conds["ConfigPublished"]["status"] == "True"
    assert conds["ConfigPublished"]["reason"] == "Published"
    assert conds["Ready"]["observedGeneration"] == ready["metadata"]["generation"]
    assert ready["status"]["configMap"] == CONFIG_MAP

    config_map = published(kube, namespace, sample()["spec"])
    assert config_map is not None, "the ConfigMap does not hold the sample's spec"
    owner = config_map["metadata"]["ownerReferences"][0]
    assert (owner["kind"], owner["name"], owner["uid"]) == ("Network", NAME, uid)
    assert (owner["controller"], owner["blockOwnerDeletion"]) == (True, True)


def test_changing_the_gateway_republishes_the_config_map(
    kube: Kube, namespace: str, networks: Resource
) -> None:
    moved = sample(gateway="192.168.255.254")
    with running_engine(kube, ROOT / "templates", namespace):
        manifests.apply_all(kube, [sample()], namespace)
        eventually(lambda: published(kube, namespace, sample()["spec"]), what="the first ConfigMap")

        manifests.apply_all(kube, [moved], namespace)
        eventually(
            lambda: published(kube, namespace, moved["spec"]), what="the ConfigMap to follow spec.gateway"
        )

        def republished() -> dict[str, Any] | None:
            network = kube.get(networks, NAME, namespace)
            cond = conditions(network).get("ConfigPublished") or {}
            if network is None or cond.get("observedGeneration") != network["metadata"]["generation"]:
                return None
            return network if cond["status"] == "True" else None

        network = eventually(republished, what="ConfigPublished=True for the new generation")
    assert network["metadata"]["generation"] == 2
    assert "192.168.255.254" in conditions(network)["ConfigPublished"]["message"]


@pytest.mark.parametrize(
    ("gateway", "why"),
    [
        pytest.param("not-an-ip", "must be an IPv4 address", id="not-an-ip"),
        pytest.param("10.0.0.1", "gateway must be an address inside cidr", id="outside-the-cidr"),
    ],
)
def test_the_api_server_refuses_a_gateway_that_is_not_an_address_in_the_cidr(
    kube: Kube, namespace: str, networks: Resource, gateway: str, why: str
) -> None:
    with pytest.raises(errors.Invalid) as refused:
        kube.request("POST", networks.path(namespace), sample(gateway=gateway))

    assert refused.value.status == 422
    causes = refused.value.body["details"]["causes"]
    assert [c["field"] for c in causes] == ["spec.gateway"]
    assert why in causes[0]["message"]
    assert kube.get(networks, NAME, namespace) is None
