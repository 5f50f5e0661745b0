"""A kind's claim is not renewed: a standby takes it when it is released (at once), or when what
it read of the claim and of the heartbeat the claim names has not changed for the heartbeat's
lease duration on its own clock; the holder's own engine writes it once when it takes its kinds."""

import datetime

from hypothesis import given
from hypothesis import strategies as st

from engine.core.decisions.coordination import holding
from engine.runtime.serving import claims, leader

WALL = datetime.datetime(2025, 1, 1, tzinfo=datetime.UTC)
HOLDER, STANDBY = "ops/stencil-leader", "team/stencil-leader"
HEARTBEAT = "ops/stencil-leader"
DURATIONS = st.integers(1, 3600)
MOMENTS = st.floats(0, 1e6)


def claim(duration: int) -> leader.LeaseRecord:
    return claims.claim_for(
        leader.Action.CREATE, claims.Sight(None), identity=HOLDER, wall=WALL, duration=duration
    )


def beat(duration: int, renewed: datetime.datetime) -> leader.LeaseRecord:
    return leader.LeaseRecord("ops-pod-0", duration, WALL, renewed, 0)


@given(claimed=DURATIONS, beats=DURATIONS, seen=MOMENTS)
def test_a_standby_waits_the_heartbeats_duration_of_stillness_not_the_claims(
    claimed: int, beats: int, seen: float
) -> None:
    sight = claims.Sight(claim(claimed), HEARTBEAT, beat(beats, WALL))

    def decides(elapsed: float) -> leader.Action:
        return claims.decide(sight, identity=STANDBY, now=seen + elapsed, observed_at=seen)

    assert claims.needs_heartbeat(sight.claim, STANDBY)
    assert decides(beats * 0.99) is leader.Action.WAIT
    assert decides(beats) is leader.Action.ACQUIRE


@given(duration=DURATIONS, renewals=st.integers(2, 50), seen=MOMENTS)
def test_a_heartbeat_that_moves_keeps_the_kind_with_its_holder_however_long(
    duration: int, renewals: int, seen: float
) -> None:
    """Each renewal is a new sight, observed anew: stillness never adds up across renewals."""
    observed: claims.Sight | None = None
    observed_at = seen
    for i in range(renewals):
        now = seen + i * duration * 0.9
        sight = claims.Sight(claim(duration), HEARTBEAT, beat(duration, WALL + datetime.timedelta(seconds=i)))
        if sight != observed:
            observed, observed_at = sight, now
        assert claims.decide(sight, identity=STANDBY, now=now, observed_at=observed_at) is leader.Action.WAIT


@given(duration=DURATIONS, seen=MOMENTS)
def test_a_released_claim_is_taken_at_once_without_reading_the_heartbeat(duration: int, seen: float) -> None:
    free = claims.released(claim(duration), wall=WALL)

    assert not claims.needs_heartbeat(free, STANDBY)
    sight = claims.Sight(free, HEARTBEAT)
    assert claims.decide(sight, identity=STANDBY, now=seen, observed_at=seen) is leader.Action.ACQUIRE
    taken = claims.claim_for(leader.Action.ACQUIRE, sight, identity=STANDBY, wall=WALL, duration=duration)
    assert (taken.holder, taken.duration, taken.transitions) == (STANDBY, duration, free.transitions + 1)


@given(duration=DURATIONS, seen=MOMENTS)
def test_a_heartbeat_gone_stands_still_for_the_duration_the_claim_records(duration: int, seen: float) -> None:
    sight = claims.Sight(claim(duration), HEARTBEAT, None)

    assert claims.decide(sight, identity=STANDBY, now=seen + duration * 0.99, observed_at=seen) is (
        leader.Action.WAIT
    )
    assert (
        claims.decide(sight, identity=STANDBY, now=seen + duration, observed_at=seen) is leader.Action.ACQUIRE
    )


@given(duration=DURATIONS, seen=MOMENTS)
def test_a_claim_naming_no_heartbeat_is_its_own(duration: int, seen: float) -> None:
    """An engine that renews its claims is judged by them."""
    annotations: dict[str, str] = {}
    sight = claims.Sight(claim(duration), claims.heartbeat_of(annotations), None)

    assert sight.heartbeat == ""
    assert claims.decide(sight, identity=STANDBY, now=seen + duration * 0.99, observed_at=seen) is (
        leader.Action.WAIT
    )
    assert (
        claims.decide(sight, identity=STANDBY, now=seen + duration, observed_at=seen) is leader.Action.ACQUIRE
    )


@given(duration=DURATIONS, seen=MOMENTS)
def test_the_holders_engine_writes_its_claim_once_on_taking_its_kinds_and_keeps_its_acquire_time(
    duration: int, seen: float
) -> None:
    held = claim(duration)
    sight = claims.Sight(held, HEARTBEAT)

    assert not claims.needs_heartbeat(held, HOLDER)
    action = claims.decide(sight, identity=HOLDER, now=seen, observed_at=seen)
    assert action is leader.Action.RENEW
    later = WALL + datetime.timedelta(seconds=duration)
    kept = claims.claim_for(action, sight, identity=HOLDER, wall=later, duration=duration)
    assert (kept.acquire_time, kept.renew_time, kept.transitions) == (
        held.acquire_time,
        later,
        held.transitions,
    )


def test_no_claim_is_created_and_the_annotation_names_the_heartbeat() -> None:
    assert claims.decide(claims.Sight(None), identity=STANDBY, now=0, observed_at=0) is leader.Action.CREATE
    assert claims.heartbeat_of({holding.HEARTBEAT_ANNOTATION: HEARTBEAT}) == HEARTBEAT
    assert claims.heartbeat_of(None) == ""
