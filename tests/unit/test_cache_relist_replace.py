"""A relist makes the cache exactly the listing and reports only the differences."""

from engine.runtime.store import Store


def configmap(name: str, version: str) -> dict[str, object]:
    return {"metadata": {"name": name, "namespace": "ns", "resourceVersion": version}}


def test_relist_emits_deletes_for_vanished_objects_and_events_only_for_changes() -> None:
    store = Store("v1", "ConfigMap")
    store.replace([configmap("kept", "1"), configmap("changed", "2"), configmap("vanished", "3")])

    events = store.replace([configmap("kept", "1"), configmap("changed", "4"), configmap("new", "5")])

    summary = sorted(
        (e.type, e.obj["metadata"]["name"], e.obj["metadata"]["resourceVersion"]) for e in events
    )
    assert summary == [("ADDED", "new", "5"), ("DELETED", "vanished", "3"), ("MODIFIED", "changed", "4")]
    assert sorted(o["metadata"]["name"] for o in store.list()) == ["changed", "kept", "new"]


def test_synthetic_delete_carries_the_last_known_state() -> None:
    store = Store("v1", "ConfigMap")
    store.replace([configmap("vanished", "3")])

    (event,) = store.replace([])

    assert event.type == "DELETED"
    assert event.obj["metadata"]["resourceVersion"] == "3"
    assert len(store) == 0
