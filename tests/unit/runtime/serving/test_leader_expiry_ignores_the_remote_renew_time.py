"""Expiry is judged on the candidate's own clock from when it saw the record change, never by
comparing the holder's ``renewTime`` with local time: a skewed clock cannot make two leaders."""

import datetime

from hypothesis import given
from hypothesis import strategies as st

from engine.runtime.serving import leader

instants = st.datetimes(
    min_value=datetime.datetime(1970, 1, 1),
    max_value=datetime.datetime(2200, 1, 1),
    timezones=st.just(datetime.UTC),
)


@given(renew_time=instants, acquire_time=instants)
def test_expiry_depends_only_on_local_observation_time(
    renew_time: datetime.datetime, acquire_time: datetime.datetime
) -> None:
    held = leader.LeaseRecord("b", 15, acquire_time, renew_time, 1)

    assert leader.decide(held, identity="a", now=1014.9, observed_at=1000.0) is leader.Action.WAIT
    assert leader.decide(held, identity="a", now=1015.0, observed_at=1000.0) is leader.Action.ACQUIRE
