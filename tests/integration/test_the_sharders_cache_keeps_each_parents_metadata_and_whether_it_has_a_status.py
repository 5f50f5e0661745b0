"""The sharder caches every parent, so it asks the API server for their metadata alone
(``PartialObjectMetadata``), listed and watched, and keeps of each the metadata its assignments
read (``as_sharder_keeps``) and whether it has a status: the one thing beyond metadata they read.
A parent without a status is kept without one; a status written later, through the status
subresource, reaches the cache by the watch; a parent's spec and status never do.  Each parent's
cached JSON is the smaller."""

from __future__ import annotations

from typing import Any

from engine.core.decisions.coordination import sharding
from engine.runtime.cluster.kube import Kube
from engine.runtime.cluster.watching import Informer
from tests.integration._engine import eventually
from tests.integration._shards import network

STATUS = [{"op": "add", "path": "/status", "value": {"observedGeneration": 1, "conditions": []}}]


def _informer(kube: Kube, namespace: str, metadata_only: bool) -> Informer:
    networks = kube.resource("samplecrd.k8s.io/v1", "Network")
    keeps = sharding.as_sharder_keeps if metadata_only else None
    return Informer(kube, networks, namespace=namespace, metadata_only=metadata_only, transform=keeps)


def test_the_sharders_cache_keeps_metadata_and_whether_a_status_was_written(
    kube: Kube, namespace: str, crds_installed: list[str]
) -> None:
    networks = kube.resource("samplecrd.k8s.io/v1", "Network")
    for name in ("reconciled", "fresh"):
        kube.create({**network(name), "metadata": {"name": name, "namespace": namespace}})
    kube.patch_status(networks, "reconciled", namespace, STATUS)

    # What the server sends for a metadata list: no spec, no status, the managed fields.
    listed = {
        item["metadata"]["name"]: item
        for page, _ in kube.pages(networks, namespace, metadata_only=True)
        for item in page
    }
    assert set(listed) == {"reconciled", "fresh"}
    assert all("spec" not in item and "status" not in item for item in listed.values())
    assert [e.get("subresource") for e in listed["reconciled"]["metadata"]["managedFields"]] == [
        None,
        "status",
    ]

    sharder, full = _informer(kube, namespace, True), _informer(kube, namespace, False)
    for informer in (sharder, full):
        informer.start()
    try:
        assert sharder.wait_for_sync(30) and full.wait_for_sync(30)
        kept: dict[str, Any] = {name: sharder.get(namespace, name) for name in ("reconciled", "fresh")}
        assert kept["reconciled"]["status"] == {}
        assert "status" not in kept["fresh"]
        for item in kept.values():
            assert "spec" not in item and "managedFields" not in item["metadata"]
            assert set(item["metadata"]) == {"name", "namespace", "resourceVersion"}
            assert (
                item["metadata"]["resourceVersion"]
                == full.get(namespace, item["metadata"]["name"])["metadata"]["resourceVersion"]
            )
        assert sharder.store.size(namespace, "reconciled") < full.store.size(namespace, "reconciled")

        kube.patch_status(networks, "fresh", namespace, STATUS)  # reaches the cache by the watch

        def with_status() -> dict[str, Any] | None:
            found = sharder.get(namespace, "fresh")
            return found if found is not None and "status" in found else None

        fresh = eventually(with_status, what="the fresh one's status")
        assert fresh["status"] == {} and "spec" not in fresh
    finally:
        sharder.stop()
        full.stop()
