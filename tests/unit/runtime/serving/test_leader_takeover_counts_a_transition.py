"""Taking an expired Lease over from another holder starts a new term: new acquireTime, one more
transition."""

import datetime

from engine.runtime.serving import leader

EARLIER = datetime.datetime(2025, 1, 1, 0, 0, 0, tzinfo=datetime.UTC)
WALL = datetime.datetime(2025, 1, 1, 0, 5, 0, 250000, tzinfo=datetime.UTC)


def test_takeover_resets_acquire_time_and_increments_transitions() -> None:
    expired = leader.LeaseRecord("b", 15, EARLIER, EARLIER, 4)

    action = leader.decide(expired, identity="a", now=120.0, observed_at=100.0)
    record = leader.record_for(action, expired, identity="a", wall=WALL, lease_duration=20)

    assert action is leader.Action.ACQUIRE
    assert record == leader.LeaseRecord("a", 20, WALL, WALL, 5)
