"""A candidate that finds no Lease creates one naming itself, with no transitions yet."""

import datetime

from engine.runtime.serving import leader

WALL = datetime.datetime(2025, 1, 2, 3, 4, 5, 678901, tzinfo=datetime.UTC)


def test_candidate_creates_a_missing_lease_naming_itself() -> None:
    action = leader.decide(None, identity="a", now=100.0, observed_at=100.0)
    record = leader.record_for(action, None, identity="a", wall=WALL, lease_duration=15)

    assert action is leader.Action.CREATE
    assert record == leader.LeaseRecord("a", 15, WALL, WALL, 0)
