"""A visit of every cached object (a resync, a handler's replay) holds one decoded at a time:
forty parents of 300 KB that take 7 MiB each decoded are never all in memory at once."""

from __future__ import annotations

import tracemalloc

from engine.runtime.cluster.store import Store

PARENTS = 40


def test_store_visits_every_object_decoding_one_at_a_time() -> None:
    store = Store("tests.stencil.dev/v1", "Widget")
    for i in range(PARENTS):
        filler = [{} for _ in range(100_000)]  # three bytes of JSON, 72 decoded, each
        store.apply("ADDED", {"metadata": {"name": f"p{i}", "namespace": "ns"}, "spec": {"filler": filler}})
    one = 100_000 * 72
    tracemalloc.start()
    try:
        visited = 0
        for obj in store.each():
            visited += len(obj["spec"]["filler"]) > 0
            del obj
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert visited == PARENTS
    assert peak < 3 * one, f"{peak / 2**20:.0f} MiB held at once visiting {PARENTS} parents"
