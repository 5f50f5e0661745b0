"""A CRD on the local plane becomes Established and its OpenAPI schema rejects invalid objects."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from engine.core.model import errors
from engine.runtime.cluster.kube import Kube
from tests._deadlines import eventually
from tests.unit import _crs


@pytest.fixture
def gadgets(kube: Kube) -> Iterator[dict[str, Any]]:
    # A group of its own, so no other test's discovery or CRDs are disturbed.
    group = f"g{uuid.uuid4().hex[:8]}.plane.stencil.dev"
    spec = {"type": "object", "required": ["size"], "properties": {"size": {"type": "integer", "minimum": 1}}}
    crd = _crs.definition(
        group,
        {"plural": "gadgets", "singular": "gadget", "kind": "Gadget", "listKind": "GadgetList"},
        {"type": "object", "properties": {"spec": spec}},
    )
    created = kube.apply(crd)
    yield created
    kube.delete(kube.resource("apiextensions.k8s.io/v1", "CustomResourceDefinition"), crd["metadata"]["name"])


def established(kube: Kube, name: str) -> bool:
    crd = kube.request("GET", f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}")
    conditions = (crd.get("status") or {}).get("conditions") or []
    return any(c["type"] == "Established" and c["status"] == "True" for c in conditions)


def test_crd_becomes_established_and_its_schema_rejects_an_invalid_object(
    kube: Kube, namespace: str, gadgets: dict[str, Any]
) -> None:
    group = gadgets["spec"]["group"]
    eventually(lambda: established(kube, gadgets["metadata"]["name"]), what="Established")
    path = f"/apis/{group}/v1/namespaces/{namespace}/gadgets"

    def gadget(name: str, size: int) -> dict[str, Any]:
        return {
            "apiVersion": f"{group}/v1",
            "kind": "Gadget",
            "metadata": {"name": name},
            "spec": {"size": size},
        }

    accepted = kube.request("POST", path, gadget("fine", 3))
    assert accepted["spec"]["size"] == 3

    with pytest.raises(errors.Invalid) as rejected:
        kube.request("POST", path, gadget("too-small", 0))
    assert rejected.value.status == 422
    assert "spec.size" in rejected.value.message
