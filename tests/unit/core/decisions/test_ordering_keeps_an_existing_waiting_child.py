"""Only creation waits: a child of a waiting template that already exists is planned as usual, so a
dependency turning unhealthy later never deletes it, and its drift is still corrected."""

from __future__ import annotations

from typing import Any

from engine.core.decisions.plans import ordering, planning
from tests.unit._children import REACH
from tests.unit._ordering import NOW, deployment, observed, template

LEADER, FRONTEND = template("redis-leader"), template("frontend", "redis-leader")
LEADER_DEPLOYMENT, FRONTEND_DEPLOYMENT = deployment("g-redis-leader"), deployment("g-frontend")
PARENT_UID = "parent-uid"


def _owned(obj: dict[str, Any]) -> dict[str, Any]:
    """``obj`` with this parent's controller owner reference, as the engine created it."""
    owner = {"apiVersion": "webapp.my.domain/v1", "kind": "Guestbook", "name": "g", "uid": PARENT_UID}
    return {**obj, "metadata": {**obj["metadata"], "ownerReferences": [{**owner, "controller": True}]}}


def test_an_existing_child_of_a_waiting_template_is_neither_held_nor_pruned() -> None:
    sick_leader = _owned(observed(LEADER_DEPLOYMENT, available=False, uid="u-leader"))
    frontend = _owned(observed(FRONTEND_DEPLOYMENT, available=True, uid="u-frontend"))
    rendered = [(LEADER, LEADER_DEPLOYMENT), (FRONTEND, FRONTEND_DEPLOYMENT)]
    gate = ordering.gate(rendered, [sick_leader, frontend], NOW)
    assert gate.ready == (LEADER_DEPLOYMENT, FRONTEND_DEPLOYMENT)
    assert gate.waiting == ()
    plan = planning.plan(list(gate.ready), [sick_leader, frontend], PARENT_UID, REACH)
    assert plan.prunes == ()
    # The cached frontend lacks the applied-hash: it is updated in place, as any drifted child is.
    updates = [a.obj["metadata"]["name"] for a in plan.applies if not a.create]
    assert "g-frontend" in updates


def test_a_waiting_child_is_never_pruned_because_it_waits() -> None:
    rendered = [(LEADER, LEADER_DEPLOYMENT), (FRONTEND, FRONTEND_DEPLOYMENT)]
    leader = _owned(observed(LEADER_DEPLOYMENT, available=False, uid="u-leader"))
    gate = ordering.gate(rendered, [leader], NOW)
    assert [w.template for w in gate.waiting] == ["frontend"]
    assert planning.plan(list(gate.ready), [leader], PARENT_UID, REACH).prunes == ()
