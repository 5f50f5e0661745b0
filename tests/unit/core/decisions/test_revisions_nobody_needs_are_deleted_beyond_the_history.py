"""A kind keeps the revisions someone needs (a parent records it, the rollout moves from or to
it) and the ten newest others; the older ones are deleted."""

from __future__ import annotations

from engine.core.decisions.coordination import rollout


def test_beyond_ten_spare_revisions_the_oldest_go() -> None:
    assert rollout.unneeded(range(1, 16), in_use={14, 15}) == [1, 2, 3]


def test_a_revision_in_use_stays_however_old() -> None:
    assert rollout.unneeded(range(1, 16), in_use={1, 15}) == [2, 3, 4]


def test_ten_or_fewer_spare_revisions_all_stay() -> None:
    assert rollout.unneeded(range(1, 12), in_use={11}) == []
