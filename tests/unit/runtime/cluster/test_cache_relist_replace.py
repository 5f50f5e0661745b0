"""A relist makes the cache exactly the listing and reports only the differences."""

from engine.runtime.cluster.store import Store


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


def test_a_listing_taken_a_page_at_a_time_keeps_what_was_written_after_its_snapshot() -> None:
    """A write's response cached between two pages (version 9) is newer than the listing's
    snapshot (version 7): its absence from the pages says nothing about it, while an object
    the snapshot should hold and does not (version 2) was deleted."""
    store = Store("v1", "ConfigMap")
    store.replace([configmap("deleted", "2")])
    seen: set[tuple[str, str]] = set()

    first = store.refill([configmap("a", "5")], seen)
    store.apply("MODIFIED", configmap("written-meanwhile", "9"), only_newer=True)
    second = store.refill([configmap("b", "6")], seen)
    ended = store.drop_unseen(seen, listed_at="7")

    assert [e.obj["metadata"]["name"] for e in (*first, *second)] == ["a", "b"]
    assert [(e.type, e.obj["metadata"]["name"]) for e in ended] == [("DELETED", "deleted")]
    assert sorted(o["metadata"]["name"] for o in store.list()) == ["a", "b", "written-meanwhile"]


def test_objects_handed_out_are_the_callers_own() -> None:
    store = Store("v1", "ConfigMap")
    store.replace([configmap("a", "1")])

    store.get("ns", "a")["metadata"]["name"] = "changed by a caller"  # type: ignore[index]
    store.list()[0]["data"] = {"also": "changed"}

    assert store.get("ns", "a") == {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "a", "namespace": "ns", "resourceVersion": "1"},
    }
