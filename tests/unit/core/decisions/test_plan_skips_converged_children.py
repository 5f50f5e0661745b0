from engine.core.decisions.plans import planning
from engine.core.model.identity import ChildId
from tests.unit._children import PARENT_UID, REACH, as_observed, configmap


def test_plan_sends_nothing_when_cache_holds_what_was_applied() -> None:
    desired = configmap("a", {"k": "v"})
    first = planning.plan([desired], [], PARENT_UID, REACH)
    observed = as_observed(first.applies[0].obj)

    again = planning.plan([desired], [observed], PARENT_UID, REACH)

    assert again.empty
    assert again.unchanged == (ChildId.of(desired),)


def test_plan_ignores_fields_the_server_added() -> None:
    desired = configmap("a", {"k": "v"})
    applied = planning.plan([desired], [], PARENT_UID, REACH).applies[0].obj
    observed = as_observed(applied, status={"something": "the server set"})
    observed["metadata"]["labels"] = {"added-by": "someone-else"}

    assert planning.plan([desired], [observed], PARENT_UID, REACH).empty
