"""``ChildrenReady`` asks a template's ``readyWhen`` for its children: False while a rule does not
hold, naming the rule and its line, True once every rule holds; children of other templates are
still judged by kstatus."""

from __future__ import annotations

import dataclasses

from engine.core.decisions.plans import ordering
from engine.core.decisions.status import Outcome, derive_status
from engine.core.model.identity import ChildId
from tests.unit._jobs import job, job_template, observed_job, ready_when
from tests.unit._kinds import status_kind
from tests.unit._ordering import NOW

MIGRATE = job_template("migrate", "child.status.succeeded >= 1", "child.status.active == 0")
KIND = dataclasses.replace(status_kind("app", "example.com/v1", "App"), templates=(MIGRATE,))
PARENT = {"apiVersion": "example.com/v1", "kind": "App", "metadata": {"name": "g", "namespace": "ns"}}
OUTCOME = Outcome(desired=(ChildId.of(job()),), origins=ordering.origins([(MIGRATE, job())]))


def children_ready(observed: dict[str, object]) -> dict[str, object]:
    status = derive_status(KIND, PARENT, [observed], OUTCOME, NOW)
    return next(c for c in status["conditions"] if c["type"] == "ChildrenReady")


def test_a_running_job_is_not_ready_and_the_message_names_the_rule_and_its_line() -> None:
    condition = children_ready(observed_job(succeeded=0))
    assert (condition["status"], condition["reason"]) == ("False", "ChildrenNotReady")
    assert condition["message"] == (
        "Job g-migrate: readyWhen 'child.status.succeeded >= 1' does not hold (kind.yaml:9); "
        "Job g-migrate: readyWhen 'child.status.active == 0' does not hold (kind.yaml:9)"
    )


def test_a_completed_job_is_ready() -> None:
    condition = children_ready(observed_job(succeeded=1))
    assert (condition["status"], condition["reason"]) == ("True", "AllReady")


def test_only_true_is_ready_and_another_value_is_named() -> None:
    counting = dataclasses.replace(MIGRATE, ready_when=(ready_when("child.status.succeeded"),))
    kind = dataclasses.replace(KIND, templates=(counting,))
    status = derive_status(kind, PARENT, [observed_job(succeeded=1)], OUTCOME, NOW)
    condition = next(c for c in status["conditions"] if c["type"] == "ChildrenReady")
    assert condition["status"] == "False"
    assert condition["message"] == (
        "Job g-migrate: readyWhen 'child.status.succeeded' gave 1, not true or false (kind.yaml:9)"
    )
