"""A kind whose hub moves to another version of its group is the same parent kind: its controller
at the old version is the one that moves (``claimants.moved_hub``), and its claim is the same
Lease (``holding.claims_of``).  Another group, or another kind, is not."""

from __future__ import annotations

from engine.core.decisions.coordination import holding
from engine.core.model import claimants

OLD = ("example.dev/v1alpha1", "Site")
NEW = ("example.dev/v1", "Site")


def test_the_controller_that_moves_is_the_same_group_and_kind_at_another_version() -> None:
    served = [("example.dev/v1alpha1", "Gate"), ("other.dev/v1alpha1", "Site"), OLD]
    assert claimants.moved_hub(served, NEW) == OLD
    assert claimants.moved_hub([NEW, OLD], NEW) == OLD
    assert claimants.moved_hub([NEW], NEW) is None  # the hub did not move
    assert claimants.moved_hub(served[:2], NEW) is None  # another kind, another group
    assert claimants.moved_hub([("v1", "Site")], ("example.dev/v1", "Site")) is None  # the core group


def test_both_versions_of_a_kind_are_held_on_one_claim() -> None:
    claims = holding.claims_of([OLD, NEW, ("example.dev/v1", "Gate"), ("other.dev/v1", "Site")])
    assert claims[holding.lease_name(*NEW)] == {OLD, NEW}
    assert len(claims) == 3
    assert holding.claims_of([]) == {}
