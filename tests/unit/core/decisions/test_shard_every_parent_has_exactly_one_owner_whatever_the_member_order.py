"""Every parent maps to one live member, the same one whichever order the members are listed in."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from engine.core.decisions.coordination import sharding

names = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-", min_size=1, max_size=12)


@given(
    members=st.lists(names, min_size=1, max_size=10, unique=True), key=st.text(max_size=60), seed=st.randoms()
)
def test_owner_is_a_member_and_independent_of_order(members: list[str], key: str, seed: object) -> None:
    owner = sharding.owner_of(key, members)
    shuffled = list(members)
    seed.shuffle(shuffled)  # type: ignore[attr-defined]
    assert owner in members
    assert sharding.owner_of(key, shuffled) == owner


def test_no_members_no_owner() -> None:
    assert sharding.owner_of("g/Network/ns/a", []) is None


def test_shares_are_even_over_three_members() -> None:
    members = ["stencil-0", "stencil-1", "stencil-2"]
    counts = dict.fromkeys(members, 0)
    for i in range(3000):
        owner = sharding.owner_of(
            sharding.parent_key("demo.stencil.dev/v1", "Network", "ns", f"n-{i}"), members
        )
        assert owner is not None
        counts[owner] += 1
    assert all(abs(count - 1000) <= 150 for count in counts.values()), counts
