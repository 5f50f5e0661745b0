"""An expected status names only what it cares about: other fields may differ, and conditions
are matched by type wherever they are in the list."""

from __future__ import annotations

from engine.tools import kindtest

LIVE = {
    "observedGeneration": 2,
    "nodePort": 30080,
    "conditions": [
        {"type": "Ready", "status": "True", "reason": "Ready", "lastTransitionTime": "2026-01-01T00:00:00Z"},
        {"type": "Progress", "status": "False", "reason": "Waiting"},
    ],
}


def test_expected_status_is_matched_as_a_subset() -> None:
    expected = {"conditions": [{"type": "Progress", "status": "False"}, {"type": "Ready", "status": "True"}]}

    assert kindtest.differences(expected, LIVE, subset=True) == []


def test_a_field_that_differs_is_named() -> None:
    expected = {"conditions": [{"type": "Progress", "status": "True"}], "nodePort": 30080}

    found = kindtest.differences(expected, LIVE, ("status",), subset=True)

    assert [d.describe() for d in found] == ['status.conditions[0].status: expected "True", live "False"']


def test_a_condition_that_is_not_there_is_named() -> None:
    found = kindtest.differences({"conditions": [{"type": "Done", "status": "True"}]}, LIVE, subset=True)

    assert [d.field for d in found] == ["conditions[0]"]
