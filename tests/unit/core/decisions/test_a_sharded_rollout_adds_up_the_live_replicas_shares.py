"""Sharded, each replica counts its own parents (a share in the KindRollout's status); the counts
and the failure budget are the live replicas' shares added up, a namespace failing on two
replicas counts once, and a replica no longer live drops out."""

from __future__ import annotations

import datetime

from engine.core.decisions.coordination import rollout
from engine.core.model.rollouts import Policy
from tests.unit import _rollouts as r

NOW = datetime.datetime(2026, 1, 1, 0, 1, 0, tzinfo=datetime.UTC)


def _status(**shares: rollout.Share) -> dict[str, object]:
    return {"shares": {name: rollout.share_status(share, r.T0) for name, share in shares.items()}}


def test_the_totals_add_up_the_live_shares_and_drop_a_gone_one() -> None:
    status = _status(b=rollout.Share(parents=5, updated=2, unavailable=1), gone=rollout.Share(parents=99))
    others = rollout.shares_of(status, {"a", "b"}, "a")
    step = rollout.step(Policy(), 2, r.standings(3, 2), NOW, others=others)
    assert (step.totals.parents, step.totals.updated, step.totals.unavailable) == (8, 5, 1)
    assert not step.complete


def test_the_budget_compares_the_sum() -> None:
    a_fails = rollout.Share(parents=10, failed=1, namespaces=(rollout.namespace_digest("a"),))
    b_fails = rollout.Share(parents=10, failed=1, namespaces=(rollout.namespace_digest("b"),))
    same = rollout.Share(parents=10, failed=1, namespaces=(rollout.namespace_digest("a"),))
    policy = Policy(max_failures=5)
    assert rollout.over_budget(policy, rollout.add(a_fails, same)) is None  # one namespace, twice
    paused = rollout.over_budget(policy, rollout.add(a_fails, b_fails))
    assert paused is not None and (paused.failed, paused.namespaces) == (2, 2)


def test_a_share_names_no_namespace() -> None:
    share = rollout.Share(parents=1, failed=1, namespaces=(rollout.namespace_digest("tenant-a"),))
    assert "tenant-a" not in repr(rollout.share_status(share, r.T0))
