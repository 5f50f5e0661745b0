"""A member joining or leaving moves only the parents whose top choice it is: about 1/N."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core.decisions.coordination import sharding

KEYS = [sharding.parent_key("demo.stencil.dev/v1", "Network", f"ns-{i % 7}", f"net-{i}") for i in range(2000)]
names = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-", min_size=1, max_size=12)


@settings(max_examples=25, deadline=None)
@given(members=st.sets(names, min_size=2, max_size=8), joiner=names)
def test_a_joining_member_takes_only_parents_it_now_owns_about_one_in_n_plus_one(
    members: set[str], joiner: str
) -> None:
    if joiner in members:
        return
    before = {key: sharding.owner_of(key, members) for key in KEYS}
    after = {key: sharding.owner_of(key, members | {joiner}) for key in KEYS}
    moved = [key for key in KEYS if before[key] != after[key]]
    assert all(after[key] == joiner for key in moved)
    share = len(moved) / len(KEYS)
    expected = 1 / (len(members) + 1)
    assert abs(share - expected) < 0.05


@settings(max_examples=25, deadline=None)
@given(members=st.sets(names, min_size=2, max_size=8), data=st.data())
def test_a_leaving_member_gives_away_only_its_own_parents(members: set[str], data: st.DataObject) -> None:
    leaver = data.draw(st.sampled_from(sorted(members)))
    before = {key: sharding.owner_of(key, members) for key in KEYS}
    after = {key: sharding.owner_of(key, members - {leaver}) for key in KEYS}
    moved = {key for key in KEYS if before[key] != after[key]}
    assert moved == {key for key in KEYS if before[key] == leaver}
