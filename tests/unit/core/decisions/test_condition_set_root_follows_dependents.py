"""The root condition is computed from its dependents, never set by hand."""

import pytest

from engine.core.decisions.conditions import ConditionSet, find_in

NOW = "2026-01-01T10:00:00Z"
LATER = "2026-01-01T11:00:00Z"
READY = ConditionSet("Ready", ("Rendered", "Applied", "Healthy"))


def test_root_is_true_when_every_dependent_is_true() -> None:
    manager = READY.manage([], generation=2, now=NOW)
    for type_ in ("Rendered", "Applied", "Healthy"):
        manager.mark_true(type_, "Fine")

    root = manager.get("Ready")

    assert root is not None
    assert (root["status"], root["reason"], root["observedGeneration"]) == ("True", "Ready", 2)


def test_root_takes_the_first_false_dependent_over_an_earlier_unknown() -> None:
    manager = READY.manage([], generation=1, now=NOW)
    manager.mark_unknown("Rendered", "Waiting", "not rendered yet")
    manager.mark_true("Applied", "Fine")
    manager.mark_false("Healthy", "ChildFailed", "Deployment web: progress deadline exceeded")

    root = manager.get("Ready")

    assert root is not None
    assert (root["status"], root["reason"], root["message"]) == (
        "False",
        "ChildFailed",
        "Deployment web: progress deadline exceeded",
    )


def test_root_is_unknown_when_nothing_is_false_but_something_is_unknown() -> None:
    manager = READY.manage([], generation=1, now=NOW)
    manager.mark_true("Rendered", "Fine")
    manager.mark_unknown("Applied", "NotRendered", "nothing applied")
    manager.mark_true("Healthy", "Fine")

    root = manager.get("Ready")

    assert root is not None
    assert (root["status"], root["reason"]) == ("Unknown", "NotRendered")


def test_dependent_not_marked_in_this_pass_is_unknown() -> None:
    previous = READY.manage([], generation=1, now=NOW)
    for type_ in ("Rendered", "Applied", "Healthy"):
        previous.mark_true(type_, "Fine")

    manager = READY.manage(previous.to_list(), generation=2, now=LATER)
    manager.mark_true("Rendered", "Fine")
    manager.mark_true("Applied", "Fine")

    healthy = manager.get("Healthy")
    assert healthy is not None and healthy["status"] == "Unknown"


def test_root_leads_a_fresh_list_and_conditions_outside_the_set_are_dropped() -> None:
    stale = [{"type": "Removed", "status": "True", "reason": "Old", "message": "", "lastTransitionTime": NOW}]
    manager = READY.manage(stale, generation=1, now=NOW)
    for type_ in ("Rendered", "Applied", "Healthy"):
        manager.mark_true(type_, "Fine")

    assert [c["type"] for c in manager.to_list()] == ["Ready", "Rendered", "Applied", "Healthy"]
    assert find_in(manager.to_list(), "Removed") is None


def test_marking_a_type_outside_the_set_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="not a dependent"):
        READY.manage([], generation=1, now=NOW).mark_true("Ready", "Manual")
