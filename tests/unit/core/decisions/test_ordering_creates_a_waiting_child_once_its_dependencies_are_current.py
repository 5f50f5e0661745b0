"""A child whose template names others in ``after:`` is held back while a child of those templates
is missing or not Current (kstatus), and let through once they all are."""

from __future__ import annotations

from engine.core.decisions import health
from engine.core.decisions.plans import ordering, planning
from engine.core.model.identity import ChildId
from tests.unit._children import REACH
from tests.unit._ordering import NOW, deployment, observed, service, template

LEADER, FRONTEND = template("redis-leader"), template("frontend", "redis-leader")
LEADER_DEPLOYMENT, LEADER_SERVICE = deployment("g-redis-leader"), service("g-redis-leader")
FRONTEND_DEPLOYMENT = deployment("g-frontend", replicas=2)
RENDERED = [(LEADER, LEADER_DEPLOYMENT), (LEADER, LEADER_SERVICE), (FRONTEND, FRONTEND_DEPLOYMENT)]


def test_nothing_observed_lets_through_only_what_waits_for_nothing() -> None:
    gate = ordering.gate(RENDERED, [], NOW)
    assert gate.ready == (LEADER_DEPLOYMENT, LEADER_SERVICE)
    assert [(w.template, w.children) for w in gate.waiting] == [
        ("frontend", (ChildId.of(FRONTEND_DEPLOYMENT),))
    ]
    assert gate.waiting[0].blockers == (ordering.Blocker("redis-leader"),)


def test_a_dependency_in_progress_holds_the_child_back_and_says_why() -> None:
    leader = observed(LEADER_DEPLOYMENT, available=False)
    verdict = health.assess(leader, now=NOW)
    assert verdict.status == health.IN_PROGRESS
    gate = ordering.gate(RENDERED, [leader, observed(LEADER_SERVICE, available=True)], NOW)
    assert FRONTEND_DEPLOYMENT not in gate.ready
    assert str(gate.waiting[0]) == f"frontend waits for redis-leader (InProgress: {verdict.message})"


def test_every_dependency_current_lets_the_child_through() -> None:
    cache = [observed(LEADER_DEPLOYMENT, available=True), observed(LEADER_SERVICE, available=True)]
    gate = ordering.gate(RENDERED, cache, NOW)
    assert gate.ready == (LEADER_DEPLOYMENT, LEADER_SERVICE, FRONTEND_DEPLOYMENT)
    assert gate.waiting == ()
    assert [
        a.obj["metadata"]["name"] for a in planning.plan(list(gate.ready), cache, "u-1", REACH).applies
    ] == ["g-frontend"]


def test_every_blocking_dependency_is_named() -> None:
    follower = template("redis-follower", "redis-leader")
    frontend = template("frontend", "redis-leader", "redis-follower")
    rendered = [
        (LEADER, LEADER_DEPLOYMENT),
        (follower, deployment("g-redis-follower")),
        (frontend, FRONTEND_DEPLOYMENT),
    ]
    gate = ordering.gate(rendered, [observed(LEADER_DEPLOYMENT, available=True)], NOW)
    assert [w.blockers for w in gate.waiting] == [(ordering.Blocker("redis-follower"),)]
    assert [c["metadata"]["name"] for c in gate.ready] == ["g-redis-leader", "g-redis-follower"]


def test_a_dependency_that_renders_nothing_holds_nobody_back() -> None:
    optional = template("cache")
    waiting = template("web", "cache")
    gate = ordering.gate([(waiting, FRONTEND_DEPLOYMENT)], [], NOW)
    assert gate.ready == (FRONTEND_DEPLOYMENT,)
    assert optional.id not in {w.template for w in gate.waiting}
