"""A status change is only progress when Ready's status and reason and the observed generation stay."""

from __future__ import annotations

from typing import Any

from engine.core.decisions import status


def parent_status(ready: str, reason: str, generation: int = 1, **rest: Any) -> dict[str, Any]:
    conditions = [
        {"type": "Ready", "status": ready, "reason": reason, "message": rest.pop("message", "")},
        {"type": "ChildrenReady", "status": rest.pop("children", "False"), "reason": "x"},
    ]
    return {"observedGeneration": generation, "conditions": conditions, **rest}


def test_messages_sub_conditions_and_fields_are_progress() -> None:
    old = parent_status("False", "ChildrenNotReady", message="0/1 ready")
    new = parent_status("False", "ChildrenNotReady", message="1/2 ready", children="Unknown", nodePort=30001)
    assert status.only_progress(old, new)


def test_a_new_ready_status_or_reason_is_a_verdict() -> None:
    old = parent_status("False", "ChildrenNotReady")
    assert not status.only_progress(old, parent_status("True", "AllReady"))
    assert not status.only_progress(old, parent_status("False", "ChildFailed"))


def test_a_new_generation_or_a_first_status_is_not_progress() -> None:
    old = parent_status("False", "ChildrenNotReady")
    assert not status.only_progress(old, parent_status("False", "ChildrenNotReady", generation=2))
    assert not status.only_progress(None, old)
    assert not status.only_progress({"observedGeneration": 1}, old)
