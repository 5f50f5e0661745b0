from engine.core.offline import fleet
from tests.unit import _fleet, _kinds


def test_a_plan_of_a_parent_that_cannot_render_says_where_and_why() -> None:
    broken = _kinds.kind(_fleet.GREETING.replace("spec.greeting", "spec.tls.secret"))

    plan = fleet.plan_parent(broken, _fleet.parent("a", greeting="hi"), [])

    assert plan.failure is not None and not plan.changed
    assert plan.failure.where == "templates/web/t0.yaml:6"
    assert plan.failure.field == "spec.tls" and "not set in the parent" in plan.failure.message
