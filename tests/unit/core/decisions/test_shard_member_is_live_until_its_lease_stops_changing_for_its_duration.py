"""A member is live while its Lease changed within its duration, on the sharder's own clock."""

from __future__ import annotations

from engine.core.decisions.coordination import sharding


def test_a_lease_unchanged_for_its_duration_drops_out() -> None:
    lease = sharding.SeenLease(holder="a", duration=15, changed_at=100.0)
    assert sharding.live_members([lease], now=114.9) == {"a"}
    assert sharding.live_members([lease], now=115.0) == frozenset()


def test_a_released_lease_is_not_live() -> None:
    assert (
        sharding.live_members([sharding.SeenLease(holder="", duration=1, changed_at=100.0)], now=100.0)
        == set()
    )


def test_an_identity_that_cannot_name_a_lease_is_refused() -> None:
    for bad in ("Upper", "host_uuid", "-dash", "x" * 64, ""):
        try:
            sharding.check_identity(bad)
        except ValueError as error:
            assert repr(bad) in str(error)
        else:
            raise AssertionError(f"{bad!r} was accepted")
    sharding.check_identity("stencil-7d9f-abc12")
