"""Reads are scoped by namespace; cluster-scoped objects live under no namespace."""

from engine.runtime.cluster.store import Store


def obj(name: str, namespace: str | None) -> dict[str, object]:
    meta = {"name": name, "resourceVersion": "1"}
    if namespace:
        meta["namespace"] = namespace
    return {"metadata": meta}


def test_list_and_get_see_only_the_namespace_asked_for() -> None:
    store = Store("v1", "ConfigMap")
    store.replace([obj("a", "one"), obj("a", "two"), obj("b", "two")])

    assert [o["metadata"]["name"] for o in store.list("two")] == ["a", "b"]
    assert len(store.list()) == 3
    assert store.list("three") == []
    assert store.get("one", "b") is None
    assert store.get("one", "a") is not None


def test_cluster_scoped_objects_are_read_with_no_namespace() -> None:
    store = Store("v1", "Namespace")
    store.replace([obj("kube-system", None)])

    assert store.get(None, "kube-system") is not None
    assert len(store.list()) == 1
