"""A parent's standing in a rollout is read from its status: the revision it records, Ready only
at its generation, and not Ready (nor failed) while it has recorded a move it has not reported
from yet; a parent with no record stands nowhere yet."""

from __future__ import annotations

from engine.core.decisions.coordination import rollout
from engine.core.model.objects import Key
from tests.unit import _rollouts as r


def test_ready_at_its_revision() -> None:
    assert rollout.standing(Key("ns", "a"), r.parent("a", 3)) == rollout.Standing(
        Key("ns", "a"), 3, r.T0, True, None
    )


def test_ready_of_an_older_generation_is_not_ready() -> None:
    assert not rollout.standing(Key("ns", "a"), r.parent("a", 3, generation=2, observed=1)).ready


def test_a_recorded_move_is_neither_ready_nor_failed() -> None:
    failed = {"type": "TemplatesRendered", "status": "False", "reason": "RenderFailed", "message": "m"}
    moving = r.parent("a", 3, ready="Unknown", reason=rollout.MOVING, more=(failed,))
    assert rollout.standing(Key("ns", "a"), moving) == rollout.Standing(Key("ns", "a"), 3, r.T0, False, None)


def test_no_record_stands_nowhere() -> None:
    assert rollout.standing(Key("ns", "a"), r.parent("a", None)).revision is None
    assert rollout.standing(Key("ns", "a"), {"metadata": {"name": "a"}}).revision is None


def test_the_cache_index_keeps_the_standing_as_it_was_read() -> None:
    failed = {"type": "TemplatesRendered", "status": "False", "reason": "RenderFailed", "message": "m"}
    for parent in (r.parent("a", 3), r.parent("a", 2, ready="False", more=(failed,))):
        (value,) = rollout.standing_value(parent)
        assert rollout.standing_of(Key("ns", "a"), value) == rollout.standing(Key("ns", "a"), parent)
    assert rollout.standing_value(r.parent("a", None)) == []
