"""A child the engine writes again during the settling window (its own ``managedFields`` entry
moved) fails the example, naming the child and each field it changed, from the first look of
the window to the last; a write that changed no value is named by its time."""

from __future__ import annotations

from engine.tools.kindtest import settling
from tests.unit._settling import child, look, parent


def test_a_child_the_engine_writes_in_its_settling_window_fails_the_example_naming_the_field() -> None:
    before = child(applied_at="2026-01-01T00:00:00Z", replicas=2, version="20")
    after = child(applied_at="2026-01-01T00:00:03Z", replicas=3, version="24")
    looks = [look(0.0, parent(), children=[before]), look(5.0, parent(), children=[after])]

    verdict = settling.judge(looks, 5.0)

    assert verdict.state is settling.State.CHANGED
    assert verdict.problems == (
        "Deployment web-deployment: the engine wrote it in the settling window: spec.replicas: 2, then 3",
    )


def test_an_apply_that_changed_no_value_is_named_by_its_time() -> None:
    before = child(applied_at="2026-01-01T00:00:00Z", version="20")
    after = child(applied_at="2026-01-01T00:00:04Z", version="21")
    looks = [look(0.0, parent(), children=[before]), look(5.0, parent(), children=[after])]

    verdict = settling.judge(looks, 5.0)

    assert verdict.problems == (
        "Deployment web-deployment: the engine wrote it in the settling window: "
        "applied again at 2026-01-01T00:00:04Z, with the same values",
    )
