"""A kind whose child is another kind's parent reads that parent as kstatus does: the inner parent
Stalled makes the outer one's children Failed and the outer parent Stalled, in the inner one's own
words; the inner one Reconciling keeps the outer one Reconciling; both Ready make both Ready."""

from __future__ import annotations

from typing import Any

from engine.core.decisions import conditions, progress, status
from engine.core.decisions.status import Outcome, derive_status
from engine.core.model.errors import RenderError
from engine.core.model.identity import ChildId
from tests.unit import _kinds

NOW = "2026-03-01T12:00:00Z"
NETWORK_KIND = _kinds.status_kind("network", "samplecrd.k8s.io/v1", "Network")
STACK_KIND = _kinds.status_kind("stack", "example.com/v1", "Stack")
STACK = {
    "apiVersion": "example.com/v1",
    "kind": "Stack",
    "metadata": {"name": "shop", "namespace": "a", "generation": 1},
}
NETWORK_ID = ChildId("samplecrd.k8s.io", "v1", "Network", "a", "shop-network")
CONFIG_ID = ChildId("", "v1", "ConfigMap", "a", "shop-network-network")


def network(outcome: Outcome, observed: list[dict[str, Any]]) -> dict[str, Any]:
    """The inner parent as the engine leaves it: its status derived from ``outcome``."""
    obj = {
        "apiVersion": "samplecrd.k8s.io/v1",
        "kind": "Network",
        "metadata": {"name": "shop-network", "namespace": "a", "generation": 2},
        "spec": {"cidr": "10.0.0.0/16"},
    }
    return {**obj, "status": derive_status(NETWORK_KIND, obj, observed, outcome, NOW)}


def stack_status(inner: dict[str, Any]) -> dict[str, Any]:
    return derive_status(STACK_KIND, STACK, [inner], Outcome(desired=(NETWORK_ID,)), NOW)


def condition(derived: dict[str, Any], type_: str) -> dict[str, Any] | None:
    return conditions.find_in(derived["conditions"], type_)


def test_an_inner_parent_stalled_fails_the_outer_ones_children_in_its_own_words() -> None:
    broken = RenderError("'spec' has no attribute 'gateway'", file="configmap.yaml", line=6, field="data")
    inner = network(Outcome(render_error=broken), [])
    inner_stalled = condition(inner["status"], progress.STALLED)
    assert inner_stalled is not None

    outer = stack_status(inner)

    ready = condition(outer, status.CHILDREN_READY)
    stalled = condition(outer, progress.STALLED)
    assert ready is not None and (ready["status"], ready["reason"]) == ("False", status.CHILD_FAILED)
    assert inner_stalled["message"] in ready["message"] and "shop-network" in ready["message"]
    assert stalled is not None
    assert (stalled["reason"], stalled["message"]) == (ready["reason"], ready["message"])
    assert condition(outer, progress.RECONCILING) is None


def test_an_inner_parent_reconciling_keeps_the_outer_one_reconciling() -> None:
    inner = network(Outcome(desired=(CONFIG_ID,)), [])
    assert condition(inner["status"], progress.RECONCILING) is not None

    outer = stack_status(inner)

    assert condition(outer, progress.STALLED) is None
    reconciling = condition(outer, progress.RECONCILING)
    assert reconciling is not None and "shop-network" in reconciling["message"]


def test_inner_and_outer_parents_ready_have_neither() -> None:
    config = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": CONFIG_ID.name, "namespace": "a"}}
    inner = network(Outcome(desired=(CONFIG_ID,)), [config])

    outer = stack_status(inner)

    assert condition(outer, status.READY)["status"] == "True"  # type: ignore[index]
    assert not {c["type"] for c in outer["conditions"]} & set(progress.TYPES)
