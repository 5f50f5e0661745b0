"""A kind's Lease is held by an engine, not a replica: a replica of the holding release that
becomes its leader renews it at once, while another engine waits for it to expire, or takes
it at once when the holder released it; two processes without leader election are two engines."""

import datetime

from hypothesis import assume, given
from hypothesis import strategies as st

from engine.core.decisions.coordination import holding
from engine.runtime.serving import leader

NAMESPACES = st.from_regex(r"[a-z][a-z0-9-]{0,20}", fullmatch=True)
WALL = datetime.datetime(2025, 1, 1, tzinfo=datetime.UTC)


@given(mine=NAMESPACES, theirs=NAMESPACES, duration=st.integers(1, 3600), seen=st.floats(0, 1e6))
def test_the_holders_next_leader_renews_and_another_release_waits_for_expiry(
    mine: str, theirs: str, duration: int, seen: float
) -> None:
    assume(theirs != mine)
    holder = holding.engine_identity(None, (mine, "stencil-leader"))
    successor = holding.engine_identity(None, (mine, "stencil-leader"))  # another replica, same release
    other = holding.engine_identity(None, (theirs, "stencil-leader"))
    held = leader.record_for(leader.Action.CREATE, None, identity=holder, wall=WALL, lease_duration=duration)

    assert leader.decide(held, identity=successor, now=seen, observed_at=seen) is leader.Action.RENEW
    assert leader.decide(held, identity=other, now=seen + duration * 0.99, observed_at=seen) is (
        leader.Action.WAIT
    )
    assert leader.decide(held, identity=other, now=seen + duration, observed_at=seen) is leader.Action.ACQUIRE


@given(duration=st.integers(1, 3600), seen=st.floats(0, 1e6))
def test_a_released_kind_is_taken_at_once_by_the_standby(duration: int, seen: float) -> None:
    holder, standby = holding.engine_identity(None, None), holding.engine_identity(None, None)
    held = leader.record_for(leader.Action.CREATE, None, identity=holder, wall=WALL, lease_duration=duration)
    free = leader.released(held, wall=WALL)

    assert holder != standby  # two processes on one host are two engines
    assert leader.decide(held, identity=standby, now=seen, observed_at=seen) is leader.Action.WAIT
    assert leader.decide(free, identity=standby, now=seen, observed_at=seen) is leader.Action.ACQUIRE
    taken = leader.record_for(
        leader.Action.ACQUIRE, free, identity=standby, wall=WALL, lease_duration=duration
    )
    assert (taken.holder, taken.transitions) == (standby, held.transitions + 1)


def test_an_identity_given_is_the_engines_whatever_its_leader() -> None:
    assert holding.engine_identity("ops/stencil", ("ns", "lease")) == "ops/stencil"
    assert holding.engine_identity(None, ("ns", "lease")) == "ns/lease"
