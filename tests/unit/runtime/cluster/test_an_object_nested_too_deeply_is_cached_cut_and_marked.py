"""An object nested deeper than any JSON library goes (here 1,100 levels, as a watch event's
line) is decoded with its metadata, cached cut at ``nesting.LIMIT`` and marked with its depth,
and refused by ``nesting.refusal`` with that depth; the objects beside it are cached as they are."""

from __future__ import annotations

import json

from engine.runtime.cluster import nesting
from engine.runtime.cluster.store import Store

DEPTH = 1_100


def watch_line(name: str, levels: int) -> bytes:
    obj = {"metadata": {"name": name, "namespace": "ns", "resourceVersion": "7"}, "spec": "@"}
    line = json.dumps({"type": "ADDED", "object": obj}, separators=(",", ":"))
    return line.replace('"@"', '"[x]"' if not levels else "[" * levels + '"]]x"' + "]" * levels).encode()


def test_an_object_nested_too_deeply_is_cached_cut_and_marked() -> None:
    store = Store("tests.stencil.dev/v1", "Widget")
    for name, levels in (("deep", DEPTH), ("plain", 0)):
        event = nesting.loads(watch_line(name, levels))
        assert event["type"] == "ADDED"
        assert store.apply(event["type"], event["object"]) is not None

    deep = store.get("ns", "deep")
    assert deep is not None
    assert deep["metadata"]["resourceVersion"] == "7"
    assert deep[nesting.MARK] == DEPTH + 1  # the object itself, then DEPTH lists
    refusal = nesting.refusal(deep)
    assert refusal is not None and refusal.terminal
    assert f"({DEPTH + 1} levels; at most {nesting.LIMIT})" in str(refusal)

    plain = store.get("ns", "plain")
    assert plain is not None and plain["spec"] == "[x]" and nesting.MARK not in plain
    assert nesting.refusal(plain) is None
