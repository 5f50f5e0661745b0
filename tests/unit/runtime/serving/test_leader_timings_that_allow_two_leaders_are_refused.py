"""Timings under which a standby could take over before the leader gives up are refused."""

import pytest

from engine.runtime.serving import leader


def test_consistent_timings_are_accepted() -> None:
    leader.check_timings(15, 10, 2)


@pytest.mark.parametrize(
    ("lease_duration", "renew_deadline", "retry_period"),
    [(10, 10, 2), (5, 10, 2), (15, 2.4, 2), (15, 10, 0)],
)
def test_timings_allowing_two_leaders_are_refused(
    lease_duration: float, renew_deadline: float, retry_period: float
) -> None:
    with pytest.raises(ValueError):
        leader.check_timings(lease_duration, renew_deadline, retry_period)
