from engine.core.decisions.plans import planning
from engine.core.model.identity import ChildId
from tests.unit._children import PARENT_UID, REACH, as_observed, configmap


def test_plan_reports_a_conflict_for_a_child_controlled_by_another_parent() -> None:
    desired = configmap("a", {"k": "v"})
    foreign = as_observed(configmap("a", {"k": "theirs"}, owner="another-uid"))

    result = planning.plan([desired], [foreign], PARENT_UID, REACH)

    assert result.applies == ()
    assert result.conflicts == (
        planning.Conflict(ChildId.of(desired), "already exists and is controlled by Parent p"),
    )


def test_plan_reports_a_conflict_for_an_uncontrolled_object() -> None:
    desired = configmap("a", {"k": "v"})
    foreign = as_observed(configmap("a", {"k": "theirs"}, owner=None))

    assert planning.plan([desired], [foreign], PARENT_UID, REACH).conflicts == (
        planning.Conflict(ChildId.of(desired), "already exists with no controller"),
    )
