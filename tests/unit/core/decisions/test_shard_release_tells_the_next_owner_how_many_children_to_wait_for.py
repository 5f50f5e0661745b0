"""The owner that lets a parent go records on it how many children it relabelled for the replica
it drains towards: that replica waits for as many in its cache; any other reads them."""

from __future__ import annotations

from typing import Any

import jsonpatch

from engine.core.decisions.coordination import sharding


def draining(present: dict[str, str] | None = None) -> dict[str, Any]:
    labels = {sharding.OWNER_LABEL: "a", sharding.DRAIN_LABEL: "b"}
    meta: dict[str, Any] = {
        "name": "n",
        "namespace": "ns",
        "uid": "u",
        "resourceVersion": "7",
        "labels": labels,
    }
    if present is not None:
        meta["annotations"] = present
    return {"apiVersion": "example.com/v1", "kind": "Thing", "metadata": meta}


def test_the_replica_drained_towards_waits_for_the_children_relabelled_for_it() -> None:
    for present in (None, {"other": "kept"}, {sharding.HANDED_OVER: "c/9"}):
        parent = draining(present)
        ops = sharding.release_patch(parent, "a", children=3)
        assert ops is not None
        released = jsonpatch.apply_patch(parent, ops)
        assert sharding.OWNER_LABEL not in sharding.labels_of(released)
        assert sharding.arrival(released, "b") == 3
        assert sharding.arrival(released, "c") is None  # given to another: it reads them
        assert (present or {}).get("other") == released["metadata"].get("annotations", {}).get("other")


def test_a_parent_nothing_was_handed_over_with_waits_for_nothing() -> None:
    assert sharding.arrival(draining(), "b") == 0
