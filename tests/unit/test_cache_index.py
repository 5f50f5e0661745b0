"""Indexes follow the objects through adds, updates, deletes and relists."""

from engine.runtime.cluster.store import Store
from engine.runtime.reconciling.children import owner_index


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
