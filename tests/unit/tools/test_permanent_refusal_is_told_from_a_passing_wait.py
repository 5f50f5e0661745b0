"""``stencil test`` stops an example at once only for what retrying does not cure: a child the API
server refuses as invalid, forbidden or already there, a name another object holds, a template
that does not render.  A child still rolling out, one waiting for another, a server that is
busy, or a condition of an older generation is waited for."""

from __future__ import annotations

from typing import Any

import pytest

from engine.tools import refusals


def parent(kind: str, reason: str, generation: int = 2, observed: int = 2) -> dict[str, Any]:
    condition = {
        "type": kind,
        "status": "False",
        "reason": reason,
        "message": "m",
        "observedGeneration": observed,
    }
    ready = {
        "type": "Ready",
        "status": "False",
        "reason": reason,
        "message": "m",
        "observedGeneration": observed,
    }
    return {"metadata": {"generation": generation}, "status": {"conditions": [ready, condition]}}


@pytest.mark.parametrize(
    ("kind", "reason"),
    [
        ("ChildrenApplied", "Invalid"),
        ("ChildrenApplied", "Forbidden"),
        ("ChildrenApplied", "AlreadyExists"),
        ("ChildrenApplied", "ChildConflict"),
        ("TemplatesRendered", "RenderFailed"),
    ],
)
def test_permanent_refusal_is_told_from_a_passing_wait(kind: str, reason: str) -> None:
    assert refusals.refusal(parent(kind, reason)) == refusals.Refusal(kind, reason, "m")


@pytest.mark.parametrize(
    ("kind", "reason"),
    [
        ("ChildrenApplied", "WaitingForDependencies"),
        ("ChildrenApplied", "TooManyRequests"),
        ("ChildrenApplied", "InternalError"),
        ("ChildrenApplied", "NotFound"),
        ("ChildrenReady", "ChildFailed"),
        ("Ready", "Invalid"),
    ],
)
def test_a_passing_wait_is_no_refusal(kind: str, reason: str) -> None:
    assert refusals.refusal(parent(kind, reason)) is None


def test_a_refusal_of_an_older_generation_is_waited_out() -> None:
    assert refusals.refusal(parent("ChildrenApplied", "Invalid", generation=3, observed=2)) is None
