"""The cache never goes backwards: an object replaces a cached one only when it is newer.

A write's response can reach the engine after the watch has already delivered a later
change of the same object (a user's spec update made while the reconcile ran); caching
that response would roll the spec back, and since the newer event was consumed already,
nothing would wake the parent again until a resync.
"""

from engine.runtime.cluster.store import Store


def configmap(version: str, value: str, uid: str = "u1") -> dict[str, object]:
    return {
        "metadata": {"name": "a", "namespace": "ns", "resourceVersion": version, "uid": uid},
        "data": {"k": value},
    }


def test_a_write_response_older_than_the_cached_watch_event_is_not_cached() -> None:
    store = Store("v1", "ConfigMap")
    store.apply("MODIFIED", configmap("12", "from the watch"))

    assert store.apply("MODIFIED", configmap("11", "write response"), only_newer=True) is None
    assert store.get("ns", "a")["data"] == {"k": "from the watch"}  # type: ignore[index]


def test_a_write_response_newer_than_the_cache_is_cached() -> None:
    store = Store("v1", "ConfigMap")
    store.apply("ADDED", configmap("11", "before"))

    event = store.apply("MODIFIED", configmap("12", "after"), only_newer=True)

    assert event is not None
    assert store.get("ns", "a")["data"] == {"k": "after"}  # type: ignore[index]


def test_versions_compare_as_integers_not_as_strings() -> None:
    store = Store("v1", "ConfigMap")
    store.apply("ADDED", configmap("9", "nine"))

    assert store.apply("MODIFIED", configmap("10", "ten"), only_newer=True) is not None
    assert store.apply("MODIFIED", configmap("9", "nine again")) is None
    assert store.get("ns", "a")["data"] == {"k": "ten"}  # type: ignore[index]


def test_a_late_watch_event_older_than_a_cached_write_response_is_dropped() -> None:
    store = Store("v1", "ConfigMap")
    store.apply("MODIFIED", configmap("20", "our write"), only_newer=True)

    assert store.apply("MODIFIED", configmap("19", "an earlier state")) is None
    assert store.get("ns", "a")["data"] == {"k": "our write"}  # type: ignore[index]


def test_opaque_versions_are_never_overlaid_by_a_write_response() -> None:
    store = Store("v1", "ConfigMap")
    store.apply("ADDED", configmap("abc", "from the watch"))

    assert store.apply("MODIFIED", configmap("abd", "write response"), only_newer=True) is None
    assert store.get("ns", "a")["data"] == {"k": "from the watch"}  # type: ignore[index]


def test_opaque_versions_from_the_watch_still_replace_on_change() -> None:
    store = Store("v1", "ConfigMap")
    store.apply("ADDED", configmap("abc", "first"))

    assert store.apply("MODIFIED", configmap("abd", "second")) is not None
    assert store.get("ns", "a")["data"] == {"k": "second"}  # type: ignore[index]


def test_the_deletion_of_an_earlier_incarnation_leaves_the_re_created_object() -> None:
    store = Store("v1", "ConfigMap")
    store.apply("MODIFIED", configmap("30", "re-created", uid="u2"), only_newer=True)

    assert store.apply("DELETED", configmap("25", "old incarnation", uid="u1")) is None
    assert store.get("ns", "a") is not None


def test_a_deletion_removes_the_cached_object() -> None:
    store = Store("v1", "ConfigMap")
    store.apply("ADDED", configmap("30", "alive"))

    event = store.apply("DELETED", configmap("31", "alive"))

    assert event is not None and event.type == "DELETED"
    assert store.get("ns", "a") is None
