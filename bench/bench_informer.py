"""Memory and CPU of an informer's cache holding N objects, managedFields stripped versus kept.

``engine.runtime.cluster.watching.Store`` drops ``metadata.managedFields`` from every object it
caches; this measures what that saves on realistic ConfigMaps and Deployments,
and what the store's operations cost at that size: taking a full listing
(decode + replace), taking one watch event (decode + apply), an index lookup by
controller owner, and listing everything (what a resync walks).
Run: ``python bench/bench_informer.py [N]`` (default 5000 of each kind).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

from measure import cpu_seconds, retained_bytes, table
from samples import configmap, deployment, list_body

from engine.runtime.cluster.store import Store
from engine.runtime.reconciling.caches.children import owner_index


class KeepingStore(Store):
    """The store as it would be without stripping managedFields: the comparison baseline."""

    def _prepare(self, obj: dict[str, Any]) -> None:
        managed = obj.get("metadata", {}).get("managedFields")
        super()._prepare(obj)
        if managed is not None:
            obj["metadata"]["managedFields"] = managed


def owned(make: Callable[[int], dict[str, Any]], index: int) -> dict[str, Any]:
    obj = make(index)
    obj["metadata"]["ownerReferences"] = [
        {
            "apiVersion": "operator.example.com/v1",
            "kind": "Parent",
            "name": f"p-{index // 2}",
            "uid": f"parent-{index // 2}",
            "controller": True,
            "blockOwnerDeletion": True,
        }
    ]
    return obj


def prepare(kind: str, make: Callable[[int], dict[str, Any]], count: int) -> tuple[bytes, list[bytes]]:
    """The list response for ``count`` objects, and a MODIFIED watch event for each of them."""
    objects = [owned(make, i) for i in range(count)]
    body = list_body(kind, objects)
    events = []
    for obj in objects:
        obj["metadata"]["resourceVersion"] = str(int(obj["metadata"]["resourceVersion"]) + count)
        events.append(json.dumps({"type": "MODIFIED", "object": obj}, separators=(",", ":")).encode())
    return body, events


def measure(
    kind: str, api_version: str, body: bytes, events: list[bytes], store_class: type[Store]
) -> list[Any]:
    count = len(events)

    def new_store() -> Store:
        store = store_class(api_version, kind)
        store.add_index("owner", owner_index)
        return store

    def take_listing() -> Store:
        store = new_store()
        store.replace(json.loads(body)["items"])
        return store

    listed = take_listing()

    def take_events() -> None:
        for raw in events:
            event = json.loads(raw)
            listed.apply(event["type"], event["object"])

    lookups = [f"parent-{i}" for i in range(count // 2)]

    def look_up() -> None:
        for uid in lookups:
            listed.by_index("owner", uid)

    memory = retained_bytes(take_listing)
    listing_cpu = cpu_seconds(take_listing, rounds=2)
    event_cpu = cpu_seconds(take_events, rounds=1)  # each round changes the cache; one is representative
    lookup_cpu = cpu_seconds(look_up)
    list_cpu = cpu_seconds(listed.list)
    return [
        kind,
        "stripped" if store_class is Store else "kept",
        memory / 2**20,
        memory / count / 1024,
        listing_cpu / count * 1e6,
        event_cpu / count * 1e6,
        lookup_cpu / len(lookups) * 1e6,
        list_cpu * 1e3,
    ]


def main(count: int = 5000) -> None:
    rows = []
    for kind, api_version, make in (("ConfigMap", "v1", configmap), ("Deployment", "apps/v1", deployment)):
        body, events = prepare(kind, make, count)
        for store_class in (Store, KeepingStore):
            rows.append(measure(kind, api_version, body, events, store_class))
    print(f"{count} objects of each kind in one informer store, indexed by controller owner")
    print(
        table(
            [
                "kind",
                "managedFields",
                "MiB",
                "KiB/obj",
                "list µs/obj",
                "event µs",
                "lookup µs",
                "list-all ms",
            ],
            rows,
        )
    )
    for kind in ("ConfigMap", "Deployment"):
        stripped, kept = (row for row in rows if row[0] == kind)
        print(f"{kind}: stripping managedFields saves {1 - stripped[2] / kept[2]:.0%} of the cache's memory")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5000)
