"""A child whose resourceVersion moves in the settling window while the engine's own entry of its
managed fields stays as it was (the Deployment controller writing its status) was not written by
the engine: the example settles."""

from __future__ import annotations

from engine.tools.kindtest import settling
from tests.unit._settling import child, look, parent


def test_a_child_only_another_controller_writes_in_the_settling_window_leaves_the_example_settled() -> None:
    before = child(version="20")
    after = child(version="27")
    after["status"] = {"replicas": 2, "availableReplicas": 2}
    after["metadata"]["managedFields"][1]["time"] = "2026-01-01T00:00:04Z"
    looks = [look(0.0, parent(), children=[before]), look(5.0, parent(), children=[after])]

    assert settling.judge(looks, 5.0) == settling.Verdict(settling.State.SETTLED)
