"""A broken CEL rule is reported at the field its fieldPath names, with its messageExpression's
text when that evaluates, else its message, else "failed rule: <rule>"."""

from __future__ import annotations

from typing import Any

import pytest

from engine.core.offline import validation_rules

VALUE = {"min": 5, "max": 3}


def broken(**entry: Any) -> validation_rules.Violation:
    schema = {"type": "object", "x-kubernetes-validations": [{"rule": "self.min <= self.max", **entry}]}
    (violation,), unchecked = validation_rules.check(
        {"type": "object", "properties": {"range": schema}}, {"range": VALUE}
    )
    assert unchecked == []
    return violation


def test_the_field_path_moves_the_report_to_that_field_and_its_value() -> None:
    violation = broken(fieldPath=".max")

    assert (violation.path, violation.value) == (("range", "max"), VALUE["max"])


def test_without_a_field_path_the_rule_s_own_field_is_reported() -> None:
    violation = broken()

    assert (violation.path, violation.value) == (("range",), VALUE)


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        (
            {"messageExpression": "'min ' + string(self.min) + ' is above max'", "message": "bad"},
            "min 5 is above max",
        ),
        ({"messageExpression": "self.nothere", "message": "min is above max"}, "min is above max"),
        ({"message": "min is above max"}, "min is above max"),
        ({}, "failed rule: self.min <= self.max"),
    ],
)
def test_the_message_is_the_expression_s_then_the_message_then_the_rule(
    entry: dict[str, str], message: str
) -> None:
    assert broken(**entry).message == message


def test_the_reason_is_kept() -> None:
    assert broken(reason="FieldValueForbidden").reason == "FieldValueForbidden"
