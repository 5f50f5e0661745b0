"""The sharder caches every parent of every kind, so it keeps of each only what its assignments
read: the name, namespace and resourceVersion, the keys of the labels and annotations with the
values of its own, and whether a status was written.  What it drops must never come back in a
write: each label write it computes from what it kept, applied to the whole parent as the API
server applies a JSON patch, leaves every other label and annotation as it was."""

from __future__ import annotations

import json
from typing import Any

import jsonpatch
import pytest

from engine.core.decisions.coordination import sharding

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
SPEC = {"cidr": "10.0.0.0/16", "routes": [f"10.{i}.0.0/24" for i in range(40)]}


def whole(labels: dict[str, str] | None, annotations: dict[str, str] | None) -> dict[str, Any]:
    """A parent as ``kubectl apply`` leaves it, reconciled once."""
    meta: dict[str, Any] = {
        "name": "net",
        "namespace": "team-a",
        "uid": "6b0e7c1e-3f1a-4b7e-9d7a-000000000001",
        "resourceVersion": "7",
        "generation": 2,
        "creationTimestamp": "2026-11-28T10:00:00Z",
        "finalizers": ["stencil.dev/children"],
        "managedFields": [{"manager": "stencil", "operation": "Apply", "subresource": "status"}],
    }
    if labels is not None:
        meta["labels"] = labels
    if annotations is not None:
        meta["annotations"] = annotations
    status = {"observedGeneration": 2, "conditions": [{"type": "Ready", "status": "True"}]}
    return {
        "apiVersion": "samplecrd.k8s.io/v1",
        "kind": "Network",
        "metadata": meta,
        "spec": SPEC,
        "status": status,
    }


def test_the_cache_drops_what_no_assignment_reads() -> None:
    parent = whole(
        {"app": "web", sharding.OWNER_LABEL: "a", sharding.DRAIN_LABEL: "b"},
        {LAST_APPLIED: json.dumps({"spec": SPEC}), sharding.HANDED_OVER: "b/3"},
    )
    kept = sharding.as_sharder_keeps(parent)
    assert kept["metadata"] == {
        "name": "net",
        "namespace": "team-a",
        "resourceVersion": "7",
        "labels": {"app": "", sharding.OWNER_LABEL: "a", sharding.DRAIN_LABEL: "b"},
        "annotations": {LAST_APPLIED: "", sharding.HANDED_OVER: "b/3"},
    }
    assert kept["status"] == {} and "spec" not in kept
    assert sharding.labels_of(kept) == {"app": "", sharding.OWNER_LABEL: "a", sharding.DRAIN_LABEL: "b"}
    assert sharding.arrival(kept, "b") == sharding.arrival(parent, "b") == 3
    assert len(json.dumps(kept)) * 4 < len(json.dumps(parent))


@pytest.mark.parametrize(
    ("labels", "annotations"),
    [
        ({"app": "web"}, {LAST_APPLIED: json.dumps({"spec": SPEC})}),  # maps the sharder adds to
        ({"app": "web", sharding.OWNER_LABEL: "gone"}, {"team": "a", sharding.HANDED_OVER: "x/1"}),
        (None, None),  # maps the sharder must add
        ({}, {}),
    ],
)
@pytest.mark.parametrize(
    ("owner", "draining", "live"),
    [
        (None, False, frozenset({"b"})),  # new: assigned
        ("gone", False, frozenset({"b"})),  # its owner died: assigned, children to be read
        ("a", False, frozenset({"a", "b"})),  # should move: marked draining
        ("a", True, frozenset({"b"})),  # died letting go: assigned
    ],
)
def test_a_write_from_what_the_cache_kept_leaves_everything_else_on_the_parent(
    labels: dict[str, str] | None,
    annotations: dict[str, str] | None,
    owner: str | None,
    draining: bool,
    live: frozenset[str],
) -> None:
    parent = whole(labels, annotations)
    meta = parent["metadata"]
    if owner is not None:
        meta["labels"] = {**(meta.get("labels") or {}), sharding.OWNER_LABEL: owner}
    if draining:
        meta["labels"][sharding.DRAIN_LABEL] = "c"
    kept = sharding.as_sharder_keeps(parent)
    decision = sharding.decide(owner, draining, "b", live)
    ops = sharding.sharder_patch(kept, decision)
    assert ops is not None

    written = jsonpatch.apply_patch(parent, ops)  # on the whole parent, as the server would

    ours = {sharding.OWNER_LABEL, sharding.DRAIN_LABEL, sharding.HANDED_OVER}
    for field in ("labels", "annotations"):
        before = {k: v for k, v in (meta.get(field) or {}).items() if k not in ours}
        after = {k: v for k, v in (written["metadata"].get(field) or {}).items() if k not in ours}
        assert after == before, field
    assert {k: v for k, v in written.items() if k != "metadata"} == {
        k: v for k, v in parent.items() if k != "metadata"
    }
    # And the write does what it says: the same as one computed from the whole parent.
    assert jsonpatch.apply_patch(parent, sharding.sharder_patch(parent, decision)) == written
