from tests.unit import _fleet, _kinds

SECRET = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: {{ name }}-token\n"


def test_a_plan_prunes_the_children_no_template_renders_any_more() -> None:
    before = _kinds.kind(_fleet.GREETING, SECRET)
    after = _kinds.kind(_fleet.GREETING)

    plan = _fleet.plan(before, after, _fleet.parent("a", greeting="hi"))

    assert [str(child) for child in plan.prunes] == ["Secret ns/a-token"]
    assert plan.unchanged == 1 and not plan.updates and not plan.creates
