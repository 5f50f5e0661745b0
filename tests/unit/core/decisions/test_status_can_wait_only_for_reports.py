"""A status may wait for more urgent work only when it says how far things got: progress, or a first
"not Ready yet" with nothing wrong.  Ready, a failure and a change of verdict are written at once."""

from __future__ import annotations

from typing import Any

from engine.core.decisions import status


def first_status(
    ready: str = "False",
    rendered: str = "True",
    applied: tuple[str, str] = ("True", "Applied"),
    children: tuple[str, str] = ("False", "ChildrenNotReady"),
    stalled: bool = False,
) -> dict[str, Any]:
    return {
        "observedGeneration": 1,
        "conditions": [
            {"type": "Ready", "status": ready, "reason": "Whatever"},
            {"type": "TemplatesRendered", "status": rendered, "reason": "Rendered"},
            {"type": "ChildrenApplied", "status": applied[0], "reason": applied[1]},
            {"type": "ChildrenReady", "status": children[0], "reason": children[1]},
            *([{"type": "Stalled", "status": "True", "reason": children[1]}] if stalled else []),
        ],
    }


def test_a_first_not_ready_yet_with_nothing_wrong_can_wait() -> None:
    assert status.can_wait(None, first_status())
    assert status.can_wait({}, first_status(ready="Unknown"))
    assert status.can_wait(None, first_status(applied=("False", "WaitingForDependencies")))


def test_a_first_ready_or_a_first_failure_is_news() -> None:
    assert not status.can_wait(None, first_status(ready="True"))
    assert not status.can_wait(None, first_status(rendered="False"))
    assert not status.can_wait(None, first_status(applied=("False", "ChildConflict")))
    assert not status.can_wait(None, first_status(children=("False", "ChildFailed"), stalled=True))


def test_after_a_first_verdict_only_progress_can_wait() -> None:
    old = first_status()
    progressed = first_status()
    progressed["conditions"][3]["message"] = "1/2 ready"
    assert status.can_wait(old, progressed)
    assert not status.can_wait(old, first_status(ready="True"))
    assert not status.can_wait(old, {**first_status(), "observedGeneration": 2})
    assert not status.can_wait(old, first_status(stalled=True))
