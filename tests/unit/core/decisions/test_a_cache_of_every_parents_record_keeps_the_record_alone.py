"""A sharded replica reads which kind revisions every parent records through a cache that keeps
each parent's name and record alone (``rollout.record_only``): a tenant's large spec, status or
annotations are not kept."""

from __future__ import annotations

from engine.core.decisions.coordination import rollout
from engine.core.decisions.status import KIND_REVISION

BULK = "x" * 100_000


def parent(status: dict[str, object]) -> dict[str, object]:
    return {
        "apiVersion": "tests.stencil.dev/v1",
        "kind": "Widget",
        "metadata": {
            "name": "w",
            "namespace": "ns",
            "uid": "u",
            "resourceVersion": "7",
            "annotations": {"bulk": BULK},
            "managedFields": [{"manager": BULK}],
        },
        "spec": {"bulk": BULK},
        "status": status,
    }


def test_the_record_and_the_name_are_kept_and_nothing_else() -> None:
    recorded = parent({KIND_REVISION: {"number": 3, "since": "t"}, "message": BULK})
    kept = rollout.record_only(recorded)
    assert kept == {
        "apiVersion": "tests.stencil.dev/v1",
        "kind": "Widget",
        "metadata": {"name": "w", "namespace": "ns", "uid": "u", "resourceVersion": "7"},
        "status": {KIND_REVISION: {"number": 3}},
    }
    assert rollout.standing("", kept).revision == 3


def test_a_parent_that_records_nothing_keeps_no_status() -> None:
    for status in ({}, {KIND_REVISION: {"number": "3"}}, {KIND_REVISION: BULK}):
        kept = rollout.record_only(parent(status))
        assert "status" not in kept
        assert rollout.standing("", kept).revision is None
