"""An example is still settling until a look at least the window's length after the first Ready
one, with its children listed, finds nothing changed; only then has it settled.  A window of 0
settles at the first Ready look."""

from __future__ import annotations

from engine.tools.kindtest import settling
from tests.unit._settling import child, look, parent


def test_an_example_settles_only_once_ready_has_held_for_the_whole_window() -> None:
    first = look(0.0, parent(), children=[child()])

    assert (
        settling.judge([first, look(4.9, parent(), children=[child()])], 5.0).state is settling.State.SETTLING
    )
    assert settling.judge([first, look(5.1, parent())], 5.0).state is settling.State.SETTLING
    assert (
        settling.judge([first, look(5.1, parent(), children=[child()])], 5.0).state is settling.State.SETTLED
    )


def test_a_window_of_no_seconds_settles_at_the_first_ready_look() -> None:
    assert settling.judge([look(0.0, parent(), children=[child()])], 0.0).state is settling.State.SETTLED
