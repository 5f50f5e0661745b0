from tests.unit import _fleet, _kinds


def test_a_plan_names_the_fields_a_changed_template_changes() -> None:
    before = _kinds.kind(_fleet.GREETING)
    after = _kinds.kind(_fleet.GREETING.replace("{{ spec.greeting }}", "{{ spec.greeting | upper }}"))

    plan = _fleet.plan(before, after, _fleet.parent("a", greeting="hi"))

    assert [(str(u.child), u.fields) for u in plan.updates] == [
        ("ConfigMap ns/a-greeting", ("data.greeting",))
    ]
    assert plan.changed and not plan.creates and not plan.prunes and plan.failure is None
