"""Cached objects always carry apiVersion and kind, which list items lack."""

from engine.runtime.cluster.store import Store


def test_list_items_without_type_meta_get_the_store_resource_type() -> None:
    store = Store("apps/v1", "Deployment")
    store.replace([{"metadata": {"name": "web", "namespace": "ns", "resourceVersion": "5"}}])

    cached = store.get("ns", "web")

    assert cached is not None
    assert (cached["apiVersion"], cached["kind"]) == ("apps/v1", "Deployment")
