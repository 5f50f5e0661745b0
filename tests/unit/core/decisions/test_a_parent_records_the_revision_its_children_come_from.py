"""The parent's status records the kind revision its children were rendered from and since when:
the time moves only with the number.  A move is recorded before the children change, with Ready
Unknown until the parent reports from the new revision."""

from __future__ import annotations

from pathlib import Path

from engine.core.decisions import status
from engine.core.decisions.coordination import rollout
from engine.core.model import kinds
from tests.unit import _rollouts as r

KIND = kinds.Kind("k", Path("/k"), "example.com/v1", "K", templates=())
LATER = "2026-01-02T00:00:00Z"


def test_a_new_number_is_recorded_with_the_time() -> None:
    derived = status.derive_status(KIND, r.parent("a", 1), [], status.Outcome(revision=2), LATER)
    assert derived["kindRevision"] == {"number": 2, "since": LATER}


def test_the_same_number_keeps_its_time() -> None:
    derived = status.derive_status(KIND, r.parent("a", 2), [], status.Outcome(revision=2), LATER)
    assert derived["kindRevision"] == {"number": 2, "since": r.T0}


def test_no_revision_leaves_the_record_alone() -> None:
    derived = status.derive_status(KIND, r.parent("a", None), [], status.Outcome(), LATER)
    assert "kindRevision" not in derived


def test_a_move_is_recorded_with_ready_unknown() -> None:
    moved = rollout.moved(r.parent("a", 1), 2, LATER)
    assert moved["kindRevision"] == {"number": 2, "since": LATER}
    ready = next(c for c in moved["conditions"] if c["type"] == "Ready")
    assert (ready["status"], ready["reason"], ready["lastTransitionTime"]) == (
        "Unknown",
        rollout.MOVING,
        LATER,
    )
