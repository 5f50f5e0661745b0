"""A Lease released on shutdown is taken by the next candidate without waiting out any duration."""

import datetime

from engine.runtime.serving import leader

ACQUIRED = datetime.datetime(2025, 1, 1, 0, 0, 0, tzinfo=datetime.UTC)
RELEASED = datetime.datetime(2025, 1, 1, 0, 9, 0, tzinfo=datetime.UTC)


def test_released_lease_has_no_holder_and_is_acquired_immediately() -> None:
    held = leader.LeaseRecord("a", 15, ACQUIRED, RELEASED, 2)

    free = leader.released(held, wall=RELEASED)

    assert free == leader.LeaseRecord("", 1, RELEASED, RELEASED, 2)
    assert leader.decide(free, identity="b", now=50.0, observed_at=50.0) is leader.Action.ACQUIRE
