"""A rollout of 10% over 200 parents moves 20 at once: the first wave is 20, a parent moved and
not Ready yet (or told to move and not recorded yet) takes a place, and a Ready one frees it."""

from __future__ import annotations

import datetime

from engine.core.decisions.coordination import rollout
from engine.core.model.objects import Key
from engine.core.model.rollouts import Policy
from tests.unit import _rollouts as r

NOW = datetime.datetime(2026, 1, 1, 0, 0, 30, tzinfo=datetime.UTC)
POLICY = Policy("10%", 600.0)


def test_the_first_wave_is_the_bound() -> None:
    step = rollout.step(POLICY, 2, r.standings(200, 1), NOW)
    assert step.bound == 20 and len(step.admit) == 20 and step.moving == ()
    assert step.admit == tuple(Key("ns", f"p-{i:03d}") for i in range(20))  # in a stable order


def test_moving_parents_and_told_ones_take_places() -> None:
    parents = r.standings(200, 1)
    parents[:5] = r.standings(5, 2, ready="False", reason="ChildrenNotReady")  # moved, not Ready
    told = frozenset({Key("ns", "p-005"), Key("ns", "p-006")})  # next in line
    step = rollout.step(POLICY, 2, parents, NOW, admitted=told)
    assert len(step.admit) == 20 - 5 - 2
    assert not told & set(step.admit)  # not told twice
    assert set(step.moving) == {*(Key("ns", f"p-{i:03d}") for i in range(5)), *told}


def test_a_parent_ready_at_the_target_frees_its_place() -> None:
    parents = r.standings(200, 1)
    parents[:20] = r.standings(20, 2)  # the first wave, all Ready
    step = rollout.step(POLICY, 2, parents, NOW)
    assert step.updated == 20 and len(step.admit) == 20 and step.admit[0] == Key("ns", "p-020")


def test_a_percent_rounds_down_but_one_always_moves() -> None:
    assert Policy("10%").bound(5) == 1 and Policy("10%").bound(29) == 2 and Policy(3).bound(200) == 3


def test_it_is_complete_when_every_parent_is_ready_at_the_target() -> None:
    assert rollout.step(POLICY, 2, r.standings(200, 2), NOW).complete
    assert not rollout.step(POLICY, 2, r.standings(200, 2, ready="False"), NOW).complete
