"""The cache keeps of managedFields only the engine's own applied set, from a listing or a watch event."""

from typing import Any

from engine.core.decisions.plans.ownership import FIELD_MANAGER
from engine.runtime.cluster.store import Store

OURS = {"f:data": {".": {}, "f:k": {}}}


def with_managed_fields(name: str, version: str, *entries: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": name,
            "namespace": "default",
            "resourceVersion": version,
            "managedFields": list(entries),
        },
        "data": {"k": "v"},
    }


def entry(manager: str, fields: dict[str, Any], operation: str = "Apply", **more: Any) -> dict[str, Any]:
    return {
        "manager": manager,
        "operation": operation,
        "apiVersion": "v1",
        "time": "2026-01-01T00:00:00Z",
        "fieldsType": "FieldsV1",
        "fieldsV1": fields,
        **more,
    }


def test_listed_objects_keep_the_engines_apply_entry_alone() -> None:
    store = Store("v1", "ConfigMap")
    others = entry("kubectl-edit", {"f:data": {"f:other": {}}}, "Update")
    status = entry(FIELD_MANAGER, {"f:status": {}}, subresource="status")
    store.replace([with_managed_fields("a", "1", others, entry(FIELD_MANAGER, OURS), status)])

    cached = store.get("default", "a")

    assert cached is not None
    assert cached["metadata"]["managedFields"] == [
        {"manager": FIELD_MANAGER, "operation": "Apply", "fieldsV1": OURS}
    ]
    assert cached["data"] == {"k": "v"}


def test_watched_objects_another_manager_wrote_keep_an_empty_list() -> None:
    store = Store("v1", "ConfigMap")
    event = store.apply("ADDED", with_managed_fields("a", "1", entry("kubectl", {"f:data": {}})))

    cached = store.get("default", "a")

    assert event is not None
    assert event.obj["metadata"]["managedFields"] == []
    assert cached is not None
    assert cached["metadata"]["managedFields"] == []


def test_objects_without_managed_fields_are_kept_without() -> None:
    store = Store("v1", "ConfigMap")
    bare = with_managed_fields("a", "1")
    del bare["metadata"]["managedFields"]
    store.replace([bare])

    cached = store.get("default", "a")

    assert cached is not None
    assert "managedFields" not in cached["metadata"]
