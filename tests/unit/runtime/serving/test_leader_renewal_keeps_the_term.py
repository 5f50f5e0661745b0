"""A holder renewing its own Lease moves only renewTime: acquireTime and transitions stay, however
long ago it last saw the record change."""

import datetime

from engine.runtime.serving import leader

ACQUIRED = datetime.datetime(2025, 1, 1, 0, 0, 0, tzinfo=datetime.UTC)
WALL = datetime.datetime(2025, 1, 1, 1, 0, 0, tzinfo=datetime.UTC)


def test_renewal_keeps_acquire_time_and_transitions() -> None:
    mine = leader.LeaseRecord("a", 15, ACQUIRED, ACQUIRED, 7)

    action = leader.decide(mine, identity="a", now=10_000.0, observed_at=0.0)
    record = leader.record_for(action, mine, identity="a", wall=WALL, lease_duration=15)

    assert action is leader.Action.RENEW
    assert record == leader.LeaseRecord("a", 15, ACQUIRED, WALL, 7)
