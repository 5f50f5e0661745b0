"""Server-side apply on the local plane: field managers are recorded and conflicts enforced."""

from __future__ import annotations

from typing import Any

import pytest

from engine.core.model import errors
from engine.runtime.cluster.kube import FIELD_MANAGER, Kube


def config_map(namespace: str, value: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "applied", "namespace": namespace},
        "data": {"colour": value},
    }


def apply_as_other(kube: Kube, obj: dict[str, Any], force: bool) -> Any:
    path = kube.resource("v1", "ConfigMap").path(obj["metadata"]["namespace"], obj["metadata"]["name"])
    return kube.request(
        "PATCH",
        path,
        obj,
        query={"fieldManager": "other", "force": str(force).lower()},
        content_type="application/apply-patch+yaml",
    )


def owners_of_colour(obj: dict[str, Any]) -> set[str]:
    return {
        entry["manager"]
        for entry in obj["metadata"]["managedFields"]
        if "f:colour" in entry.get("fieldsV1", {}).get("f:data", {})
    }


def test_apply_records_its_field_manager_in_managed_fields(kube: Kube, namespace: str) -> None:
    applied = kube.apply(config_map(namespace, "red"), force=False)

    entries = [e for e in applied["metadata"]["managedFields"] if e["manager"] == FIELD_MANAGER]
    assert [e["operation"] for e in entries] == ["Apply"]
    assert owners_of_colour(applied) == {FIELD_MANAGER}


def test_a_second_managers_conflicting_apply_is_refused_unless_forced(kube: Kube, namespace: str) -> None:
    kube.apply(config_map(namespace, "red"), force=False)

    with pytest.raises(errors.Conflict) as refused:
        apply_as_other(kube, config_map(namespace, "blue"), force=False)
    assert refused.value.status == 409
    assert FIELD_MANAGER in refused.value.message

    forced = apply_as_other(kube, config_map(namespace, "blue"), force=True)
    assert forced["data"]["colour"] == "blue"
    assert owners_of_colour(forced) == {"other"}
