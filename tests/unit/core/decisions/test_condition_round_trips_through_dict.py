"""Condition speaks the API's camelCase keys in both directions."""

from engine.core.decisions.conditions import Condition

API_CONDITION = {
    "type": "Available",
    "status": "True",
    "observedGeneration": 3,
    "lastTransitionTime": "2026-01-01T10:00:00Z",
    "reason": "MinimumReplicasAvailable",
    "message": "Deployment has minimum availability.",
}


def test_condition_from_the_api_and_back_is_unchanged() -> None:
    condition = Condition.from_dict(API_CONDITION)

    assert condition.observed_generation == 3
    assert condition.last_transition_time == "2026-01-01T10:00:00Z"
    assert condition.to_dict() == API_CONDITION


def test_condition_without_observed_generation_omits_the_key() -> None:
    assert "observedGeneration" not in Condition("Ready", "Unknown", "Pending").to_dict()
