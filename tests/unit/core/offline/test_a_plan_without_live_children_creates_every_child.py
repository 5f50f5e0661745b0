from engine.core.offline import fleet
from tests.unit import _fleet, _kinds


def test_a_plan_without_live_children_creates_every_child() -> None:
    plan = fleet.plan_parent(_kinds.kind(_fleet.GREETING), _fleet.parent("a", greeting="hi"), [])

    assert [str(child) for child in plan.creates] == ["ConfigMap ns/a-greeting"]
    assert len(plan.applies) == 1 and not plan.updates
