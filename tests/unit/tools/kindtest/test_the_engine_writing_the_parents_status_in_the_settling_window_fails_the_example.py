"""The parent written during the settling window (its resourceVersion moved: once its example is
applied only the engine writes it) fails the example, naming the status fields that changed,
even when Ready still holds."""

from __future__ import annotations

from engine.tools.kindtest import settling
from tests.unit._settling import child, look, parent


def test_the_engine_writing_the_parents_status_in_the_settling_window_fails_the_example() -> None:
    rewritten = parent(message="all 2 children ready", version="12")
    looks = [look(0.0, parent(), children=[child()]), look(5.0, rewritten, children=[child()])]

    verdict = settling.judge(looks, 5.0)

    assert verdict.state is settling.State.CHANGED
    assert verdict.problems == (
        "Widget web: the engine wrote the parent in the settling window: "
        'status.conditions[0].message: absent, then "all 2 children ready"',
    )
