"""A parent moved to the target that fails stops the rollout: nobody else moves, and the failure
names the parent and why (its step's reason, or ProgressDeadlineExceeded).  Waiting for a
dependency is not a failure; a resume gives the moving parents their deadline again."""

from __future__ import annotations

import datetime

from engine.core.decisions import rollout
from engine.core.model.rollouts import Policy
from tests.unit import _rollouts as r

NOW = datetime.datetime(2026, 1, 1, 0, 1, 0, tzinfo=datetime.UTC)  # a minute after T0
POLICY = Policy("10%", 30.0)


def _one_moved(**kwargs: object) -> list[rollout.Standing]:
    parents = r.standings(100, 1)
    parents[7] = rollout.standing("ns/p-007", r.parent("p-007", 2, **kwargs))  # type: ignore[arg-type]
    return parents


def test_a_render_failure_stops_it() -> None:
    failed = {"type": "TemplatesRendered", "status": "False", "reason": "RenderFailed", "message": "x.yaml:3"}
    step = rollout.step(
        POLICY,
        2,
        _one_moved(ready="False", reason="RenderFailed", since="2026-01-01T00:00:50Z", more=(failed,)),
        NOW,
    )
    assert step.admit == ()
    assert step.failure == rollout.Failure("ns/p-007", "RenderFailed", "x.yaml:3")


def test_not_ready_within_the_deadline_stops_it() -> None:
    step = rollout.step(POLICY, 2, _one_moved(ready="False", reason="ChildrenNotReady"), NOW)
    assert step.failure is not None and step.failure.reason == rollout.DEADLINE_EXCEEDED
    assert step.failure.parent == "ns/p-007" and step.admit == ()


def test_within_the_deadline_it_goes_on() -> None:
    recent = "2026-01-01T00:00:45Z"  # 15 s ago, of 30
    step = rollout.step(POLICY, 2, _one_moved(ready="False", reason="ChildrenNotReady", since=recent), NOW)
    assert step.failure is None and len(step.admit) == 10 - 1


def test_a_resume_starts_the_deadline_again() -> None:
    parents = _one_moved(ready="False", reason="ChildrenNotReady")
    step = rollout.step(POLICY, 2, parents, NOW, resumed="2026-01-01T00:00:50Z")
    assert step.failure is None


def test_waiting_for_a_dependency_is_not_a_failure() -> None:
    waiting = {
        "type": "ChildrenApplied",
        "status": "False",
        "reason": "WaitingForDependencies",
        "message": "",
    }
    recent = "2026-01-01T00:00:45Z"
    step = rollout.step(
        POLICY,
        2,
        _one_moved(ready="False", reason="WaitingForDependencies", since=recent, more=(waiting,)),
        NOW,
    )
    assert step.failure is None


def test_paused_nobody_moves() -> None:
    step = rollout.step(POLICY, 2, r.standings(100, 1), NOW, paused=True)
    assert step.admit == () and step.failure is None
