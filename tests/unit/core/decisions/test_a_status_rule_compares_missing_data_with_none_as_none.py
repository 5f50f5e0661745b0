"""In a status rule, missing data compared with none is none: ``is not none`` and ``!= none``
are false for a field a child has not reported, so a condition does not turn True early."""

from __future__ import annotations

from typing import Any

import pytest

from engine.core.decisions.context import status_context
from engine.core.model.language.expressions import compile_expression

PARENT = {"metadata": {"name": "web", "namespace": "shop"}, "spec": {}}
JOB = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "migrate"}}
RUNNING_JOB = {**JOB, "status": {"active": 1}}
DONE_JOB = {**JOB, "status": {"completionTime": "2024-01-01T00:00:00Z"}}


def value(text: str, job: dict[str, Any] | None) -> Any:
    rule = compile_expression(text, file="kind.yaml", line=9, field="conditions[0].status")
    return rule.evaluate(status_context(PARENT, [job] if job else []))


@pytest.mark.parametrize(
    ("test", "missing", "present"),
    [
        ("is none", True, False),
        ("is not none", False, True),
        ("== none", True, False),
        ("!= none", False, True),
    ],
)
@pytest.mark.parametrize("job", [RUNNING_JOB, None], ids=["no-field", "no-child"])
def test_missing_data_compares_with_none_as_none_does(
    test: str, missing: bool, present: bool, job: dict[str, Any] | None
) -> None:
    assert value(f"child('Job', 'migrate').status.completionTime {test}", job) is missing
    assert value(f"child('Job', 'migrate').status.completionTime {test}", DONE_JOB) is present


def test_a_spec_field_not_set_is_none() -> None:
    assert value("spec.tier is not none", None) is False
