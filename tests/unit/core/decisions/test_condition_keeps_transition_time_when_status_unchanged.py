"""lastTransitionTime records when status last changed, not when we last looked."""

from engine.core.decisions.conditions import Condition, set_condition

T1 = "2026-01-01T10:00:00Z"
T2 = "2026-01-01T10:05:00Z"


def test_condition_keeps_transition_time_when_status_unchanged() -> None:
    first = set_condition([], Condition("Available", "False", "Waiting", "0/2 ready", 1), T1)

    second = set_condition(first, Condition("Available", "False", "StillWaiting", "1/2 ready", 2), T2)

    assert second == [
        {
            "type": "Available",
            "status": "False",
            "observedGeneration": 2,
            "lastTransitionTime": T1,
            "reason": "StillWaiting",
            "message": "1/2 ready",
        }
    ]


def test_condition_moves_transition_time_when_status_changes() -> None:
    first = set_condition([], Condition("Available", "False", "Waiting", "0/2 ready"), T1)

    second = set_condition(first, Condition("Available", "True", "Ready", "2/2 ready"), T2)

    assert second[0]["lastTransitionTime"] == T2
    assert second[0]["status"] == "True"


def test_condition_setting_the_same_condition_twice_changes_nothing() -> None:
    condition = Condition("Available", "True", "Ready", "2/2 ready", 4)
    first = set_condition([], condition, T1)

    assert set_condition(first, condition, T2) == first


def test_condition_without_a_previous_transition_time_gets_now() -> None:
    existing = [{"type": "Available", "status": "True", "reason": "Ready", "message": ""}]

    assert set_condition(existing, Condition("Available", "True", "Ready"), T2)[0]["lastTransitionTime"] == T2
