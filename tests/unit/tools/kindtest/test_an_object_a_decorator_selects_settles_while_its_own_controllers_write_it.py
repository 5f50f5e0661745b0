"""The objects a decorator selects are written by their own controllers (a StatefulSet's status)
while ``stencil test`` watches them settle: such a write leaves the example settled, as a child's
would; a move of what the decorator's patch manager holds there is the engine's write, and fails
it, naming the field.  A kind's own parent keeps the stricter rule: any move of it is a write."""

from __future__ import annotations

import copy
from typing import Any

from engine.tools.kindtest import settling
from tests.unit._settling import look

MANAGER = "stencil-patch/expose/shop/web"


def _statefulset(version: str, label: str = "true", **status: Any) -> dict[str, Any]:
    entry = {"manager": MANAGER, "operation": "Apply", "time": "2026-01-01T00:00:00Z"}
    entry["fieldsV1"] = {"f:metadata": {"f:labels": {"f:exposed": {}}}}
    meta = {"name": "web", "namespace": "shop", "uid": "u", "resourceVersion": version, "generation": 1}
    meta |= {"labels": {"exposed": label}, "managedFields": [entry]}
    return {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": meta, "status": status}


def _settled(*_: Any) -> str | None:
    return None


def test_its_own_controllers_write_leaves_the_example_settled() -> None:
    before, after = _statefulset("20"), _statefulset("27", readyReplicas=3)
    looks = [look(0.0, before, children=[]), look(5.0, after, children=[])]

    assert settling.judge(looks, 5.0, _settled, decorated=True) == settling.Verdict(settling.State.SETTLED)
    assert settling.judge(looks, 5.0, _settled).state is settling.State.CHANGED


def test_a_move_of_what_its_patch_holds_is_the_engines_write() -> None:
    before = _statefulset("20")
    after = copy.deepcopy(_statefulset("27", label="false"))
    after["metadata"]["managedFields"][0]["time"] = "2026-01-01T00:00:04Z"
    looks = [look(0.0, before, children=[]), look(5.0, after, children=[])]

    verdict = settling.judge(looks, 5.0, _settled, decorated=True)

    assert verdict.state is settling.State.CHANGED
    assert "metadata.labels.exposed" in verdict.problems[0], verdict.problems
