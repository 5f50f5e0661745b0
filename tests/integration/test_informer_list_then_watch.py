"""An informer lists what exists, then follows creates, updates and deletes by watching."""

from __future__ import annotations

from typing import Any

from engine.runtime.cluster.kube import Kube
from engine.runtime.cluster.watching import Informer
from tests._deadlines import eventually


def configmap(namespace: str, name: str, value: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": namespace, "labels": {"test": "informer"}},
        "data": {"value": value},
    }


def test_informer_sees_listed_added_modified_and_deleted_configmaps(kube: Kube, namespace: str) -> None:
    resource = kube.resource("v1", "ConfigMap")
    kube.create(configmap(namespace, "before", "0"))
    seen: list[tuple[str, str, str | None]] = []

    def record(type_: str, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
        seen.append((type_, obj["metadata"]["name"], old["data"]["value"] if old else None))

    # The selector leaves out the namespace's kube-root-ca.crt, published by the controller manager.
    informer = Informer(kube, resource, namespace=namespace, label_selector="test=informer", on_event=record)
    informer.start()
    try:
        assert informer.wait_for_sync(30)
        assert seen == [("ADDED", "before", None)]

        kube.create(configmap(namespace, "after", "1"))
        kube.apply(configmap(namespace, "after", "2"))
        kube.delete(resource, "after", namespace)

        eventually(lambda: len(seen) >= 4, what="the watch events")
        assert seen[1:] == [("ADDED", "after", None), ("MODIFIED", "after", "1"), ("DELETED", "after", "2")]
        assert informer.get(namespace, "after") is None
        cached = informer.get(namespace, "before")
        assert cached is not None
        assert (cached["apiVersion"], cached["kind"], cached["data"]) == ("v1", "ConfigMap", {"value": "0"})
        kept = cached["metadata"]["managedFields"]  # cut to the engine's own applied set
        assert all(set(e) == {"manager", "operation", "fieldsV1"} and e["manager"] == "stencil" for e in kept)
        assert [o["metadata"]["name"] for o in informer.list(namespace)] == ["before"]
    finally:
        informer.stop()
