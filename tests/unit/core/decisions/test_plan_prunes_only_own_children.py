from engine.core.decisions.plans import planning
from engine.core.model.children import placement
from tests.unit._children import PARENT_UID, REACH, as_observed, configmap


def test_plan_prunes_a_child_no_longer_rendered_with_its_uid() -> None:
    kept = configmap("kept", {"k": "v"})
    dropped = as_observed(configmap("dropped", {"k": "v"}), uid="dropped-uid")

    result = planning.plan([kept], [dropped], PARENT_UID, REACH)

    assert result.prunes == (planning.Prune("v1", "ConfigMap", "ns", "dropped", "dropped-uid"),)


def test_plan_never_prunes_an_object_controlled_by_someone_else() -> None:
    foreign = as_observed(configmap("foreign", {"k": "v"}, owner="another-uid"))

    assert planning.plan([], [foreign], PARENT_UID, REACH).prunes == ()


def test_plan_prunes_a_label_owned_child_without_owner_reference() -> None:
    labelled = as_observed(
        configmap("elsewhere", {"k": "v"}, owner=None, labels={placement.PARENT_UID_LABEL: PARENT_UID})
    )

    assert [p.name for p in planning.plan([], [labelled], PARENT_UID, REACH).prunes] == ["elsewhere"]
