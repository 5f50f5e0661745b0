"""An update that does not change the resourceVersion is not an event."""

from engine.runtime.cluster.store import Store


def configmap(version: str, value: str) -> dict[str, object]:
    return {"metadata": {"name": "a", "namespace": "ns", "resourceVersion": version}, "data": {"k": value}}


def test_modified_event_with_unchanged_resource_version_is_dropped() -> None:
    store = Store("v1", "ConfigMap")
    store.apply("ADDED", configmap("7", "first"))

    assert store.apply("MODIFIED", configmap("7", "first")) is None


def test_modified_event_with_new_resource_version_carries_the_old_object() -> None:
    store = Store("v1", "ConfigMap")
    store.apply("ADDED", configmap("7", "first"))

    event = store.apply("MODIFIED", configmap("8", "second"))

    assert event is not None
    assert event.type == "MODIFIED"
    assert event.obj["data"] == {"k": "second"}
    assert event.old is not None
    assert event.old["data"] == {"k": "first"}


def test_added_event_for_an_object_already_cached_is_a_modification() -> None:
    store = Store("v1", "ConfigMap")
    store.apply("ADDED", configmap("7", "first"))

    event = store.apply("ADDED", configmap("9", "second"))

    assert event is not None
    assert event.type == "MODIFIED"
