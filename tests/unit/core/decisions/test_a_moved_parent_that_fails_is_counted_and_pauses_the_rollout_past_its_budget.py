"""A parent moved to the target that fails is counted as failed and holds no room in the waves:
the rollout goes on for the others until the failures pass the kind's budget (of parents, and
of namespaces), then pauses, saying counts and naming no parent.  Waiting for a dependency is
not a failure; a resume gives the moving parents their deadline again."""

from __future__ import annotations

import datetime

from engine.core.decisions.coordination import rollout
from engine.core.model.objects import Key
from engine.core.model.rollouts import Policy
from tests.unit import _rollouts as r

NOW = datetime.datetime(2026, 1, 1, 0, 1, 0, tzinfo=datetime.UTC)  # a minute after T0
POLICY = Policy("10%", 30.0)


def _one_moved(**kwargs: object) -> list[rollout.Standing]:
    parents = r.standings(100, 1)
    parents[7] = rollout.standing(Key("ns", "p-007"), r.parent("p-007", 2, **kwargs))  # type: ignore[arg-type]
    return parents


FAILED = {"type": "TemplatesRendered", "status": "False", "reason": "RenderFailed", "message": "x.yaml:3"}
RECENT = "2026-01-01T00:00:50Z"


def _failed(key: Key) -> rollout.Standing:
    found = r.parent(key.name, 2, ready="False", reason="RenderFailed", since=RECENT, more=(FAILED,))
    found["metadata"]["namespace"] = key.namespace
    return rollout.standing(key, found)


def test_a_render_failure_is_counted_and_holds_no_room_in_the_waves() -> None:
    parents = r.standings(100, 1)
    parents[7] = _failed(Key("ns", "p-007"))
    step = rollout.step(POLICY, 2, parents, NOW)
    assert step.failure is None and step.share.failed == 1
    assert Key("ns", "p-007") not in step.moving and len(step.admit) == 10  # the whole bound, for the others


def test_past_the_budget_of_parents_it_pauses_in_counts_naming_nobody() -> None:
    parents = r.standings(100, 1)
    for i in range(11):  # 10% of 100 is 10
        parents[i] = _failed(Key("ns", f"p-{i:03d}"))
    step = rollout.step(POLICY, 2, parents, NOW)
    assert step.admit == () and step.failure is not None
    assert (step.failure.reason, step.failure.failed, step.failure.namespaces) == ("RenderFailed", 11, 1)
    said = rollout.summary(step, 1, False, None, "2026-01-01T00:01:00Z")
    assert "p-0" not in repr(said) and "x.yaml" not in repr(said) and said["failedParents"] == 11


def test_failures_in_more_namespaces_than_the_budget_pause_it() -> None:
    parents = r.standings(100, 1)
    parents[0], parents[1] = _failed(Key("a", "p-000")), _failed(Key("b", "p-001"))
    assert rollout.step(POLICY, 2, parents, NOW).failure is not None
    tolerant = Policy("10%", 30.0, max_failures=5, max_failed_namespaces=2)
    assert rollout.step(tolerant, 2, parents, NOW).failure is None


def test_the_default_goes_on_past_one_tenants_failing_parent_of_two() -> None:
    parents = [_failed(Key("a", "p-000")), rollout.standing(Key("b", "p-001"), r.parent("p-001", 1))]
    step = rollout.step(Policy(), 2, parents, NOW)
    assert step.failure is None and step.admit == (Key("b", "p-001"),)


def test_a_budget_of_zero_pauses_at_the_first_failure() -> None:
    parents = r.standings(100, 1)
    parents[7] = _failed(Key("ns", "p-007"))
    assert rollout.step(Policy("10%", 30.0, max_failures=0), 2, parents, NOW).failure is not None


def test_not_ready_within_the_deadline_is_a_failure() -> None:
    step = rollout.step(POLICY, 2, _one_moved(ready="False", reason="ChildrenNotReady"), NOW)
    assert step.share.failed == 1 and step.share.reasons == (rollout.DEADLINE_EXCEEDED,)
    assert step.failure is None and Key("ns", "p-007") not in step.moving


def test_within_the_deadline_it_goes_on() -> None:
    recent = "2026-01-01T00:00:45Z"  # 15 s ago, of 30
    step = rollout.step(POLICY, 2, _one_moved(ready="False", reason="ChildrenNotReady", since=recent), NOW)
    assert step.failure is None and len(step.admit) == 10 - 1


def test_a_resume_starts_the_deadline_again() -> None:
    parents = _one_moved(ready="False", reason="ChildrenNotReady")
    step = rollout.step(POLICY, 2, parents, NOW, resumed="2026-01-01T00:00:50Z")
    assert step.share.failed == 0 and Key("ns", "p-007") in step.moving


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
    assert step.share.failed == 0


def test_paused_nobody_moves() -> None:
    step = rollout.step(POLICY, 2, r.standings(100, 1), NOW, paused=True)
    assert step.admit == () and step.failure is None
