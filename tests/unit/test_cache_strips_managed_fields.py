"""The cache does not keep managedFields, from a listing or from a watch event."""

from engine.runtime.cluster.store import Store


def with_managed_fields(name: str, version: str) -> dict[str, object]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": name,
            "namespace": "default",
            "resourceVersion": version,
            "managedFields": [{"manager": "kubectl", "operation": "Apply", "fieldsV1": {"f:data": {}}}],
        },
        "data": {"k": "v"},
    }


def test_listed_objects_are_cached_without_managed_fields() -> None:
    store = Store("v1", "ConfigMap")
    store.replace([with_managed_fields("a", "1")])

    cached = store.get("default", "a")

    assert cached is not None
    assert "managedFields" not in cached["metadata"]
    assert cached["data"] == {"k": "v"}


def test_watched_objects_are_cached_and_delivered_without_managed_fields() -> None:
    store = Store("v1", "ConfigMap")
    event = store.apply("ADDED", with_managed_fields("a", "1"))

    cached = store.get("default", "a")

    assert event is not None
    assert "managedFields" not in event.obj["metadata"]
    assert cached is not None
    assert "managedFields" not in cached["metadata"]
