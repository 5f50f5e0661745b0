"""While a child waits for others (``after:``), ChildrenApplied is False with reason
WaitingForDependencies and the gate's message, and Ready carries it; a conflict says more and wins."""

from __future__ import annotations

from pathlib import Path

from engine.core.decisions import conditions
from engine.core.decisions.plans import ordering
from engine.core.decisions.plans.planning import Conflict
from engine.core.decisions.status import READY, Outcome, derive_status
from engine.core.model.identity import ChildId
from engine.core.model.kinds import Kind
from tests.unit._ordering import NOW, deployment, observed, template

KIND = Kind("guestbook", Path("templates/guestbook"), "webapp.my.domain/v1", "Guestbook", templates=())
PARENT = {
    "apiVersion": "webapp.my.domain/v1",
    "kind": "Guestbook",
    "metadata": {"name": "g", "namespace": "ns", "generation": 1},
}
LEADER, FRONTEND = template("redis-leader"), template("frontend", "redis-leader")
RENDERED = [(LEADER, deployment("g-redis-leader")), (FRONTEND, deployment("g-frontend"))]
DESIRED = tuple(ChildId.of(c) for _, c in RENDERED)


def _waiting() -> tuple[list[dict[str, object]], tuple[ordering.Waiting, ...]]:
    cache = [observed(RENDERED[0][1], available=False)]
    return cache, ordering.gate(RENDERED, cache, NOW).waiting


def test_ready_says_what_the_child_waits_for() -> None:
    cache, waiting = _waiting()
    assert waiting
    status = derive_status(KIND, PARENT, cache, Outcome(desired=DESIRED, waiting=waiting), NOW)
    ready = conditions.find_in(status["conditions"], READY)
    assert ready is not None
    assert (ready["status"], ready["reason"], ready["message"]) == (
        "False",
        "WaitingForDependencies",
        str(waiting[0]),
    )


def test_a_conflict_is_reported_before_the_wait() -> None:
    cache, waiting = _waiting()
    conflict = Conflict(DESIRED[0], "already exists with another controller")
    outcome = Outcome(desired=DESIRED, waiting=waiting, conflicts=(conflict,))
    ready = conditions.find_in(derive_status(KIND, PARENT, cache, outcome, NOW)["conditions"], READY)
    assert ready is not None and ready["reason"] == "ChildConflict"
