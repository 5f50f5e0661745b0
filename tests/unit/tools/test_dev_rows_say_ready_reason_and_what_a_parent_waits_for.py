"""``stencil dev``'s rows: one per parent, with Ready and its reason, the child (or condition) that
keeps it from Ready, and its age."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from engine.tools import parents

NOW = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)


def parent(name: str, namespace: str, conditions: list[dict[str, Any]], age: timedelta) -> dict[str, Any]:
    created = (NOW - age).strftime("%Y-%m-%dT%H:%M:%SZ")
    return {
        "apiVersion": "example.com/v1",
        "kind": "Web",
        "metadata": {"name": name, "namespace": namespace, "generation": 2, "creationTimestamp": created},
        "status": {
            "conditions": [{**c, "observedGeneration": c.get("observedGeneration", 2)} for c in conditions]
        },
    }


WAITING_CHILD = "Deployment b-deployment: 0 of 2 replicas available"
WAITING = parent(
    "b",
    "shop",
    [
        {"type": "Ready", "status": "False", "reason": "ChildrenNotReady", "message": "…"},
        {"type": "TemplatesRendered", "status": "True", "reason": "Rendered"},
        {
            "type": "ChildrenReady",
            "status": "False",
            "reason": "ChildrenNotReady",
            "message": f"{WAITING_CHILD}; Service b-service: not created yet",
        },
    ],
    timedelta(minutes=5),
)
READY = parent("a", "shop", [{"type": "Ready", "status": "True", "reason": "Ready"}], timedelta(seconds=30))
CUSTOM = parent(
    "c",
    "shop",
    [
        {"type": "Ready", "status": "False", "reason": "NodePortPending", "message": "no port"},
        {"type": "ChildrenReady", "status": "True", "reason": "AllReady"},
        {"type": "ServiceAvailable", "status": "False", "reason": "NodePortPending", "message": "no port"},
    ],
    timedelta(hours=3),
)
STALE = parent(
    "d",
    "shop",
    [{"type": "Ready", "status": "True", "reason": "Ready", "observedGeneration": 1}],
    timedelta(0),
)
NEW = {"apiVersion": "example.com/v1", "kind": "Web", "metadata": {"name": "e", "namespace": "shop"}}


def test_dev_rows_say_ready_reason_and_what_a_parent_waits_for() -> None:
    rows = parents.rows([WAITING, CUSTOM, READY, STALE, NEW], NOW)

    assert [row.name for row in rows] == ["shop/a", "shop/b", "shop/c", "shop/d", "shop/e"]
    by_name = {row.name: row for row in rows}
    assert (by_name["shop/a"].ready, by_name["shop/a"].blocking, by_name["shop/a"].age) == ("True", "", "30s")
    assert (by_name["shop/b"].ready, by_name["shop/b"].reason) == ("False", "ChildrenNotReady")
    assert by_name["shop/b"].blocking == WAITING_CHILD
    assert by_name["shop/b"].age == "5m"
    assert by_name["shop/c"].blocking == "ServiceAvailable: no port"
    assert by_name["shop/c"].age == "3h"
    assert "generation 2" in by_name["shop/d"].blocking
    assert (by_name["shop/e"].ready, by_name["shop/e"].blocking) == ("-", "not reconciled yet")
