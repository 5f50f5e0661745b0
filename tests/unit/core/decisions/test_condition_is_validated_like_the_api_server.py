"""A condition the API server would refuse is refused before it is written."""

import pytest

from engine.core.decisions.conditions import Condition, reason_from


@pytest.mark.parametrize("reason", ["", "not ready", "Bad-Reason", "1Leading", "Trailing:"])
def test_condition_rejects_a_reason_that_is_not_camel_case(reason: str) -> None:
    with pytest.raises(ValueError, match="CamelCase"):
        Condition("Ready", "False", reason)


def test_condition_rejects_a_status_other_than_true_false_unknown() -> None:
    with pytest.raises(ValueError, match="status must be one of"):
        Condition("Ready", "true", "Fine")


def test_condition_rejects_an_invalid_type() -> None:
    with pytest.raises(ValueError, match="invalid condition type"):
        Condition("not a type", "True", "Fine")


def test_condition_accepts_a_domain_prefixed_type() -> None:
    assert Condition("example.com/Synced", "True", "Fine").type == "example.com/Synced"


def test_reason_from_turns_words_into_camel_case() -> None:
    assert reason_from("minimum replicas unavailable", "Fallback") == "MinimumReplicasUnavailable"
    assert reason_from("AlreadyCamel", "Fallback") == "AlreadyCamel"
    assert reason_from("3 pods: not-ready", "Fallback") == "PodsNotReady"
    assert reason_from("!!!", "Fallback") == "Fallback"
