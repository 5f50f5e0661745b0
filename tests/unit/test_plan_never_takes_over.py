from engine.core import planning
from tests.unit._children import PARENT_UID, as_observed, configmap


def test_plan_reports_a_conflict_for_a_child_controlled_by_another_parent() -> None:
    desired = configmap("a", {"k": "v"})
    foreign = as_observed(configmap("a", {"k": "theirs"}, owner="another-uid"))

    result = planning.plan([desired], [foreign], PARENT_UID)

    assert result.applies == ()
    assert result.conflicts == (
        (
            ("v1", "ConfigMap", "ns", "a"),
            "ConfigMap ns/a already exists with another controller (uid another-uid)",
        ),
    )


def test_plan_reports_a_conflict_for_an_uncontrolled_object() -> None:
    desired = configmap("a", {"k": "v"})
    foreign = as_observed(configmap("a", {"k": "theirs"}, owner=None))

    assert planning.plan([desired], [foreign], PARENT_UID).conflicts == (
        (("v1", "ConfigMap", "ns", "a"), "ConfigMap ns/a already exists with no controller"),
    )
