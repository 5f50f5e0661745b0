"""Deriving status again from unchanged inputs gives the same status, so nothing is written."""

from typing import Any

from engine.core.decisions import conditions
from engine.core.decisions.status import Outcome, derive_status, status_changed
from engine.core.model.identity import ChildId
from tests.unit import _kinds
from tests.unit._ordering import PROGRESSING, rollout

T1 = "2026-03-01T12:00:00Z"
T2 = "2026-03-01T12:00:30Z"
T3 = "2026-03-01T12:05:00Z"
KIND = _kinds.status_kind("settings", "example.com/v1", "Settings")
DESIRED = (ChildId("apps", "v1", "Deployment", "", "app"),)


def parent(status: dict[str, Any] | None = None, generation: int = 1) -> dict[str, Any]:
    body: dict[str, Any] = {
        "apiVersion": "example.com/v1",
        "kind": "Settings",
        "metadata": {"name": "s", "namespace": "shop", "generation": generation},
        "spec": {},
    }
    if status is not None:
        body["status"] = status
    return body


def app(ready: int) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "app", "generation": 1},
        "spec": {"replicas": 1},
        "status": rollout(
            1, ready, {"type": "Available", "status": "True" if ready else "False"}, PROGRESSING
        ),
    }


def transition_times(status: dict[str, Any]) -> dict[str, str]:
    return {c["type"]: c["lastTransitionTime"] for c in status["conditions"]}


def test_status_derived_again_later_from_the_same_inputs_is_equal() -> None:
    first = derive_status(KIND, parent(), [app(0)], Outcome(desired=DESIRED), T1)

    second = derive_status(KIND, parent(first), [app(0)], Outcome(desired=DESIRED), T2)

    assert second == first
    assert not status_changed(first, second)


def test_status_moves_transition_time_only_for_conditions_whose_status_changed() -> None:
    first = derive_status(KIND, parent(), [app(0)], Outcome(desired=DESIRED), T1)

    second = derive_status(KIND, parent(first), [app(1)], Outcome(desired=DESIRED), T3)

    assert status_changed(first, second)
    assert transition_times(second) == {
        "Ready": T3,
        "TemplatesRendered": T1,
        "ChildrenApplied": T1,
        "ChildrenReady": T3,
    }


def test_status_records_the_generation_it_was_derived_from() -> None:
    first = derive_status(KIND, parent(), [app(1)], Outcome(desired=DESIRED), T1)

    second = derive_status(KIND, parent(first, generation=2), [app(1)], Outcome(desired=DESIRED), T2)

    assert second["observedGeneration"] == 2
    assert {c["observedGeneration"] for c in second["conditions"]} == {2}
    assert transition_times(second) == transition_times(first)


def test_status_of_a_parent_without_status_has_changed() -> None:
    new = derive_status(KIND, parent(), [app(1)], Outcome(desired=DESIRED), T1)

    assert status_changed(None, new)
    ready = conditions.find_in(new["conditions"], "Ready")
    assert ready is not None and ready["status"] == "True"
