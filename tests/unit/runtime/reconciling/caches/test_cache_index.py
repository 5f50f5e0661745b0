"""Indexes follow the objects through adds, updates, deletes and relists."""

from engine.runtime.cluster.store import Store
from engine.runtime.reconciling.caches.children import owner_index


def child(name: str, version: str, owner: str | None) -> dict[str, object]:
    refs = [{"uid": "not-controller", "controller": False}]
    if owner:
        refs.append({"uid": owner, "controller": True})
    return {
        "metadata": {"name": name, "namespace": "ns", "resourceVersion": version, "ownerReferences": refs}
    }


def names(store: Store, owner: str) -> list[str]:
    return [o["metadata"]["name"] for o in store.by_index("owner", owner)]


def test_index_tracks_the_controller_owner_through_updates_and_deletes() -> None:
    store = Store("v1", "ConfigMap")
    store.add_index("owner", owner_index)
    store.apply("ADDED", child("a", "1", "p1"))
    store.apply("ADDED", child("b", "2", "p1"))
    store.apply("MODIFIED", child("b", "3", "p2"))
    store.apply("DELETED", child("a", "4", "p1"))

    assert names(store, "p1") == []
    assert names(store, "p2") == ["b"]
    assert names(store, "not-controller") == []


def test_index_added_late_covers_objects_already_cached() -> None:
    store = Store("v1", "ConfigMap")
    store.replace([child("a", "1", "p1"), child("b", "2", None)])
    store.add_index("owner", owner_index)

    assert names(store, "p1") == ["a"]


def test_relist_removes_vanished_objects_from_the_index() -> None:
    store = Store("v1", "ConfigMap")
    store.add_index("owner", owner_index)
    store.replace([child("a", "1", "p1"), child("b", "2", "p1")])
    store.replace([child("b", "2", "p1")])

    assert names(store, "p1") == ["b"]


def test_the_same_index_can_be_declared_twice_but_not_with_another_function() -> None:
    store = Store("v1", "ConfigMap")
    store.add_index("owner", owner_index)
    store.add_index("owner", owner_index)

    try:
        store.add_index("owner", lambda obj: [])
    except ValueError as error:
        assert "owner" in str(error)
    else:
        raise AssertionError("a second function for one index name was accepted")


def test_a_value_shared_by_several_objects_then_by_one_then_none_finds_exactly_those() -> None:
    store = Store("v1", "ConfigMap")
    store.add_index("owner", owner_index)
    for i, name in enumerate("abc"):
        store.apply("ADDED", child(name, str(i + 1), "p1"))
    assert names(store, "p1") == ["a", "b", "c"]

    store.apply("DELETED", child("b", "4", "p1"))
    assert names(store, "p1") == ["a", "c"]
    store.apply("MODIFIED", child("a", "5", "p2"))
    assert names(store, "p1") == ["c"] and names(store, "p2") == ["a"]
    store.apply("MODIFIED", child("c", "6", "p1"))  # the same value again: still found, once
    assert names(store, "p1") == ["c"]
    store.apply("ADDED", child("d", "7", "p1"))
    assert names(store, "p1") == ["c", "d"]
    store.replace([child("a", "5", "p2")])
    assert names(store, "p1") == [] and names(store, "p2") == ["a"]
    store.apply("DELETED", child("a", "8", "p2"))
    assert names(store, "p2") == [] and store.indexed("owner") == {}


def test_an_object_giving_one_value_twice_is_found_once_and_forgotten_whole() -> None:
    store = Store("v1", "ConfigMap")
    store.add_index("twice", lambda obj: [obj["metadata"]["name"][0]] * 2)
    store.apply("ADDED", child("a1", "1", None))
    store.apply("ADDED", child("a2", "2", None))
    assert store.keys_by_index("twice", "a") == [("ns", "a1"), ("ns", "a2")]
    store.apply("DELETED", child("a1", "3", None))
    assert store.keys_by_index("twice", "a") == [("ns", "a2")]
    store.apply("DELETED", child("a2", "4", None))
    assert store.keys_by_index("twice", "a") == [] and store.indexed("twice") == {}
