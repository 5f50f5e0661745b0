from engine.core.decisions.plans import planning
from tests.unit._children import PARENT_UID, REACH, as_observed, configmap


def test_plan_reapplies_a_child_whose_rendered_value_was_edited() -> None:
    desired = configmap("a", {"k": "v"})
    observed = as_observed(planning.plan([desired], [], PARENT_UID, REACH).applies[0].obj)
    observed["data"] = {"k": "edited by hand"}

    result = planning.plan([desired], [observed], PARENT_UID, REACH)

    assert [a.obj["data"] for a in result.applies] == [{"k": "v"}]
    assert result.applies[0].create is False
    assert planning.drift(observed, desired) == ["data.k"]


def test_plan_reapplies_when_the_template_stopped_rendering_a_field() -> None:
    before = configmap("a", {"k": "v", "gone": "soon"})
    observed = as_observed(planning.plan([before], [], PARENT_UID, REACH).applies[0].obj)
    after = configmap("a", {"k": "v"})

    # The cached object still holds every value of ``after``: only the hash can tell.
    assert planning.contains(observed, planning.with_hash(after)) is False
    assert len(planning.plan([after], [observed], PARENT_UID, REACH).applies) == 1
