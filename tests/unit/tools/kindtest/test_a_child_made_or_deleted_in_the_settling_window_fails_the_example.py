"""A child that appears, disappears or is made again (a new uid) between the first and the last
look of the settling window fails the example, naming it."""

from __future__ import annotations

from engine.tools.kindtest import settling
from tests.unit._settling import child, look, parent


def service() -> dict[str, object]:
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web", "uid": "svc-1"}}


def test_a_child_made_or_deleted_in_the_settling_window_fails_the_example() -> None:
    made = [look(0.0, parent(), children=[child()]), look(5.0, parent(), children=[child(), service()])]
    gone = [look(0.0, parent(), children=[child(), service()]), look(5.0, parent(), children=[child()])]
    again = child()
    again["metadata"]["uid"] = "a-new-uid"
    remade = [look(0.0, parent(), children=[child()]), look(5.0, parent(), children=[again])]

    assert settling.judge(made, 5.0).problems == ("Service web: the engine made it in the settling window",)
    assert settling.judge(gone, 5.0).problems == ("Service web: deleted in the settling window",)
    assert settling.judge(remade, 5.0).problems == (
        "Deployment web-deployment: deleted and made again in the settling window",
    )
