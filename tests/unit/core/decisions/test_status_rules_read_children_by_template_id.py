"""Status rules read a template's observed child as ``children.<id>``: the child itself when the
template renders one, the list of those observed when it is a collection; kinds still work."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from engine.core.decisions import context
from engine.core.decisions.plans import ordering
from engine.core.decisions.status import Outcome, derive_status
from engine.core.model.kinds import FieldRule, Kind
from engine.core.model.language.expressions import compile_expression
from tests.unit._ordering import NOW, deployment, observed, service, template

PARENT = {
    "apiVersion": "webapp.my.domain/v1",
    "kind": "Guestbook",
    "metadata": {"name": "g", "namespace": "ns", "generation": 1},
    "spec": {},
}
LEADER, FRONTEND = template("redis-leader"), dataclasses.replace(template("frontend"), collection=True)
LEADER_DEPLOYMENT, FRONTEND_SERVICE = deployment("g-redis-leader"), service("g-frontend")
FRONTEND_DEPLOYMENT = deployment("g-frontend")
RENDERED = [(LEADER, LEADER_DEPLOYMENT), (FRONTEND, FRONTEND_DEPLOYMENT), (FRONTEND, FRONTEND_SERVICE)]
ORIGINS = ordering.origins(RENDERED)


def evaluate(text: str, cache: list[dict[str, Any]]) -> Any:
    rule = compile_expression(text, file="kind.yaml", line=1, field="status.fields.x")
    return rule.evaluate(
        context.status_context(PARENT, cache, now=NOW, origins=ORIGINS, templates=(LEADER, FRONTEND))
    )


def test_a_template_of_one_child_reads_as_that_child() -> None:
    leader = observed(LEADER_DEPLOYMENT, available=True)
    assert evaluate("children['redis-leader']", [leader]) == leader
    assert evaluate("children['redis-leader'].status.readyReplicas", [leader]) == 1


def test_a_collection_reads_as_the_list_of_those_observed() -> None:
    frontend = observed(FRONTEND_DEPLOYMENT, available=False)
    assert evaluate("children.frontend", [frontend]) == [frontend]
    assert evaluate("children.frontend | map(attribute='kind') | list", [frontend]) == ["Deployment"]


def test_a_child_not_created_yet_reads_as_none() -> None:
    assert evaluate("children['redis-leader'].status.readyReplicas", []) is None
    assert evaluate("health(children['redis-leader'])", []) is None


def test_the_kind_forms_still_work_beside_the_ids() -> None:
    leader = observed(LEADER_DEPLOYMENT, available=True)
    assert evaluate(
        "children.Deployment['g-redis-leader'] == child('Deployment', 'g-redis-leader')", [leader]
    )
    assert evaluate("child('Deployment', name ~ '-redis-leader').metadata.uid", [leader]) == "u-1"


def test_a_child_at_another_version_of_its_group_is_still_its_templates() -> None:
    leader = {**observed(LEADER_DEPLOYMENT, available=True), "apiVersion": "apps/v1beta2"}
    assert evaluate("children['redis-leader'].metadata.uid", [leader]) == "u-1"


def test_derive_status_hands_the_outcomes_origins_to_the_rules() -> None:
    kind = Kind(
        name="guestbook",
        directory=Path("templates/guestbook"),
        api_version="webapp.my.domain/v1",
        kind="Guestbook",
        templates=(LEADER, FRONTEND),
        fields=(
            FieldRule(
                "leaderReady",
                compile_expression(
                    "health(children['redis-leader'])",
                    file="kind.yaml",
                    line=1,
                    field="status.fields.leaderReady",
                ),
            ),
        ),
    )
    leader = observed(LEADER_DEPLOYMENT, available=True)
    status = derive_status(kind, PARENT, [leader], Outcome(origins=ORIGINS), NOW)
    assert status["leaderReady"] == context.status_context(PARENT, [leader], now=NOW)["health"](leader)
