"""A parent that is Ready at one look and not at a later one within the settling window fails its
example at once, saying how far into the window it turned and what Ready says now: ``stencil
test`` does not pass an example on a momentary Ready."""

from __future__ import annotations

from engine.tools.kindtest import settling
from tests.unit._settling import child, look, parent


def test_a_parent_ready_for_a_moment_fails_its_settling_window_saying_what_it_became() -> None:
    flipped = parent(
        "False", reason="ChildrenNotReady", message="Deployment web-deployment: 1 of 2 replicas available"
    )
    looks = [look(0.0, parent(), children=[child()]), look(0.2, parent()), look(1.2, flipped)]

    verdict = settling.judge(looks, 5.0)

    assert verdict.state is settling.State.CHANGED
    assert verdict.problems == (
        "Widget web: 1.2s into the 5s settling window, Ready is False (ChildrenNotReady): "
        "Deployment web-deployment: 1 of 2 replicas available",
    )
