"""A record survives the trip to a Lease spec and back, times as metav1.MicroTime (six digits, UTC)."""

import datetime

from hypothesis import given
from hypothesis import strategies as st

from engine.runtime.serving import leader

instants = st.datetimes(
    min_value=datetime.datetime(1970, 1, 2),
    max_value=datetime.datetime(9999, 1, 1),
    timezones=st.just(datetime.UTC),
)


@given(
    holder=st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-_.", max_size=40),
    duration=st.integers(min_value=1, max_value=2**31 - 1),
    acquired=instants,
    renewed=instants,
    transitions=st.integers(min_value=0, max_value=2**31 - 1),
)
def test_record_round_trips_through_spec(
    holder: str, duration: int, acquired: datetime.datetime, renewed: datetime.datetime, transitions: int
) -> None:
    record = leader.LeaseRecord(holder, duration, acquired, renewed, transitions)

    spec = record.to_spec()

    assert leader.LeaseRecord.from_spec(spec) == record
    assert spec["renewTime"].endswith("Z")
    assert len(spec["renewTime"].split(".")[1]) == len("000000Z")
