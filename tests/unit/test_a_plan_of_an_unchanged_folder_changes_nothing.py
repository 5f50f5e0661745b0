from tests.unit import _fleet, _kinds


def test_a_plan_of_an_unchanged_folder_changes_nothing() -> None:
    kind = _kinds.kind(_fleet.GREETING)

    plan = _fleet.plan(kind, kind, _fleet.parent("a", greeting="hi"))

    assert not plan.changed and plan.unchanged == 1 and not plan.applies
