"""Another holder's Lease is respected until it has gone unchanged for its own duration."""

from hypothesis import given
from hypothesis import strategies as st

from engine.runtime.serving import leader


@given(
    duration=st.integers(min_value=1, max_value=3600),
    observed_at=st.floats(min_value=0, max_value=1e6),
    fraction=st.floats(min_value=0, max_value=0.999),
)
def test_candidate_waits_until_lease_has_gone_unchanged_for_its_duration(
    duration: int, observed_at: float, fraction: float
) -> None:
    held = leader.LeaseRecord(holder="b", duration=duration, transitions=3)
    before_expiry = observed_at + duration * fraction
    at_expiry = observed_at + duration

    assert leader.decide(held, identity="a", now=before_expiry, observed_at=observed_at) is leader.Action.WAIT
    assert leader.decide(held, identity="a", now=at_expiry, observed_at=observed_at) is leader.Action.ACQUIRE
