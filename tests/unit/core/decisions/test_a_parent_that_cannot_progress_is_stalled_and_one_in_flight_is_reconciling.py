"""Beside Ready, a parent says Stalled (with the blocking cause) when only a change from outside can
help, Reconciling (with what is in flight) while work goes on, and neither once it is Ready: the
verdict kstatus reads as Failed, InProgress and Current."""

from __future__ import annotations

from typing import Any

import pytest

from engine.core.decisions import conditions, progress, referencing, status
from engine.core.decisions.plans import contention, ordering
from engine.core.decisions.plans.planning import Conflict
from engine.core.decisions.status import Outcome, derive_status
from engine.core.model.errors import ApiError, KindError, Refused, RenderError
from engine.core.model.identity import ChildId
from tests.unit import _kinds

NOW = "2026-03-01T12:00:00Z"
LATER = "2026-03-01T13:00:00Z"
KIND = _kinds.deploywebservice()
PARENT = _kinds.shop_web(3)
CONFIG = ChildId("", "v1", "ConfigMap", "shop", "web-config")
DEPLOYMENT = ChildId("apps", "v1", "Deployment", "shop", "web-deployment")
CONFIGMAP = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "web-config", "namespace": "shop"}}


def deployment(**status_: Any) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web-deployment", "namespace": "shop", "generation": 1},
        "spec": {"replicas": 2},
        "status": {"observedGeneration": 1, **status_},
    }


PAST_DEADLINE = deployment(
    replicas=2,
    conditions=[{"type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded"}],
)
ROLLING = deployment(replicas=2, updatedReplicas=1, readyReplicas=1, availableReplicas=1)


STALLING = {
    "a template that does not render": (
        Outcome(render_error=RenderError("'spec' has no attribute 'x'", file="t.yaml", line=3)),
        [],
        status.TEMPLATES_RENDERED,
    ),
    "a kind that does not load": (
        Outcome(kind_error=KindError("duplicate key 'status'", file="kind.yaml", line=4)),
        [],
        status.TEMPLATES_RENDERED,
    ),
    "a name someone else holds": (
        Outcome(conflicts=(Conflict(CONFIG, "already exists with no controller"),), desired=(CONFIG,)),
        [],
        status.CHILDREN_APPLIED,
    ),
    "a contested field": (
        Outcome(desired=(CONFIG,), contested=(contention.Contest(CONFIG, ("data", "k"), 5, 60.0),)),
        [CONFIGMAP],
        status.CHILDREN_APPLIED,
    ),
    "a child the API server refuses": (
        Outcome(desired=(CONFIG,), apply_error=Refused("422: data", ApiError(422, "Invalid"), 30.0)),
        [],
        status.CHILDREN_APPLIED,
    ),
    "a child past its progress deadline": (
        Outcome(desired=(DEPLOYMENT,)),
        [PAST_DEADLINE],
        status.CHILDREN_READY,
    ),
}
IN_FLIGHT = {
    "a child not ready yet": (Outcome(desired=(DEPLOYMENT,)), [ROLLING]),
    "a child not there yet": (Outcome(desired=(CONFIG,)), []),
    "a child waiting for another": (
        Outcome(desired=(CONFIG, DEPLOYMENT), waiting=(ordering.Waiting("deployment", (DEPLOYMENT,), ()),)),
        [CONFIGMAP],
    ),
    "a required reference not found": (
        Outcome(missing=(referencing.Missing(referencing.Target("config", CONFIG)),)),
        [],
    ),
    "an apply that may pass": (
        Outcome(desired=(CONFIG,), apply_error=ApiError(500, "etcdserver: request timed out")),
        [],
    ),
}


def found(derived: dict[str, Any], type_: str) -> dict[str, Any] | None:
    return conditions.find_in(derived["conditions"], type_)


@pytest.mark.parametrize("case", STALLING)
def test_a_cause_only_a_change_from_outside_can_clear_stalls_the_parent(case: str) -> None:
    outcome, observed, blocking = STALLING[case]

    derived = derive_status(KIND, PARENT, observed, outcome, NOW)

    cause, stalled = found(derived, blocking), found(derived, progress.STALLED)
    assert cause is not None and cause["status"] == "False"
    assert stalled is not None, derived["conditions"]
    assert (stalled["status"], stalled["reason"]) == ("True", cause["reason"])
    assert stalled["message"] == cause["message"] and stalled["message"]
    assert stalled["observedGeneration"] == 3
    assert found(derived, progress.RECONCILING) is None
    assert found(derived, status.READY)["status"] == "False"  # type: ignore[index]


@pytest.mark.parametrize("case", IN_FLIGHT)
def test_work_in_flight_makes_the_parent_reconciling_with_what_it_waits_for(case: str) -> None:
    outcome, observed = IN_FLIGHT[case]

    derived = derive_status(KIND, PARENT, observed, outcome, NOW)

    ready, reconciling = found(derived, status.READY), found(derived, progress.RECONCILING)
    assert ready is not None and ready["status"] != "True"
    assert reconciling is not None, derived["conditions"]
    assert (reconciling["status"], reconciling["reason"]) == ("True", ready["reason"])
    assert reconciling["message"] == ready["message"] and reconciling["message"]
    assert found(derived, progress.STALLED) is None


def test_a_ready_parent_has_neither_and_keeps_the_status_it_had_before_them() -> None:
    ready = derive_status(KIND, PARENT, [CONFIGMAP], Outcome(desired=(CONFIG,)), NOW)
    before = {**ready, "conditions": [c for c in ready["conditions"] if c["type"] not in progress.TYPES]}

    assert found(ready, status.READY)["status"] == "True"  # type: ignore[index]
    assert before == ready
    again = derive_status(KIND, {**PARENT, "status": before}, [CONFIGMAP], Outcome(desired=(CONFIG,)), LATER)
    assert not status.status_changed(before, again)


def test_a_stall_keeps_its_transition_time_while_it_lasts_and_goes_once_the_cause_is_gone() -> None:
    outcome, observed, _ = STALLING["a child past its progress deadline"]
    first = derive_status(KIND, PARENT, observed, outcome, NOW)
    stalled_parent = {**PARENT, "status": first}

    still = derive_status(KIND, stalled_parent, observed, outcome, "2026-03-01T12:05:00Z")
    rolling = derive_status(KIND, stalled_parent, [ROLLING], outcome, "2026-03-01T12:06:00Z")

    assert not status.status_changed(first, still)
    assert found(rolling, progress.STALLED) is None
    reconciling = found(rolling, progress.RECONCILING)
    assert reconciling is not None and reconciling["lastTransitionTime"] == "2026-03-01T12:06:00Z"


def test_turning_stalled_is_a_new_verdict_even_when_ready_keeps_its_reason() -> None:
    waiting = ordering.Waiting("config", (CONFIG,), ())
    outcome = Outcome(desired=(CONFIG, DEPLOYMENT), waiting=(waiting,))
    rolling = derive_status(KIND, PARENT, [ROLLING], outcome, NOW)
    failed = derive_status(KIND, {**PARENT, "status": rolling}, [PAST_DEADLINE], outcome, NOW)

    assert found(rolling, status.READY)["reason"] == found(failed, status.READY)["reason"]  # type: ignore[index]
    assert found(failed, progress.STALLED) is not None
    assert not status.only_progress(rolling, failed)
    assert not status.can_wait(rolling, failed)
