"""kind.yaml's own conditions and status fields are evaluated over the parent and its children."""

from typing import Any

from engine.core.decisions import conditions
from engine.core.decisions.status import Outcome, derive_status
from engine.core.model.kinds import ConditionRule, FieldRule, Kind
from engine.core.model.language.expressions import compile_expression
from tests.unit import _kinds

NOW = "2026-03-01T12:00:00Z"
PARENT = {
    "apiVersion": "operator.wujiuye.com/v1beta1",
    "kind": "DeployWebService",
    "metadata": {"name": "web", "namespace": "shop", "generation": 2},
    "spec": {"replicas": 2},
    # Fields Stencil does not own (written by someone else) and one it does.
    "status": {"lastBackup": "2026-02-28", "nodePort": 31000, "observedGeneration": 1},
}
SERVICE = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "web-service", "namespace": "shop"},
    "spec": {"type": "NodePort", "ports": [{"port": 80, "nodePort": 30080}]},
}


def expression(text: str, field: str) -> Any:
    return compile_expression(text, file="kind.yaml", line=20, field=field)


def kind(*rules: ConditionRule, fields: tuple[FieldRule, ...] = ()) -> Kind:
    return _kinds.deploywebservice(conditions=rules, fields=fields)


def custom(status_text: str, reason: str | None = None, message: str | None = None) -> ConditionRule:
    return ConditionRule(
        "ServiceAvailable",
        expression(status_text, "conditions.ServiceAvailable.status"),
        expression(reason, "conditions.ServiceAvailable.reason") if reason else None,
        expression(message, "conditions.ServiceAvailable.message") if message else None,
    )


def service_available(rule: ConditionRule, observed: list[dict[str, Any]]) -> dict[str, Any]:
    status = derive_status(kind(rule), PARENT, observed, Outcome(), NOW)
    found = conditions.find_in(status["conditions"], "ServiceAvailable")
    assert found is not None
    return found


def test_custom_condition_true_false_and_missing_data_map_to_condition_statuses() -> None:
    rule = custom("child('Service', name ~ '-service').spec.type == 'NodePort'")
    missing = custom("child('Service', name ~ '-service').spec.ports[0].nodePort > 30000")

    assert service_available(rule, [SERVICE])["status"] == "True"
    assert service_available(rule, [])["status"] == "False"
    assert service_available(missing, [])["status"] == "Unknown"


def test_custom_condition_default_reasons_and_messages_quote_the_rule() -> None:
    text = "child('Service', name ~ '-service') is not none"
    rule = custom(text)

    assert {k: service_available(rule, [SERVICE])[k] for k in ("reason", "message")} == {
        "reason": "Satisfied",
        "message": f"{text} is true",
    }
    assert service_available(rule, [])["reason"] == "NotSatisfied"


def test_custom_condition_copies_a_childs_condition_status() -> None:
    # How the seed derived DeploymentAvailable: straight from the Deployment's Available.
    rule = ConditionRule(
        "DeploymentAvailable",
        expression("condition_status(child('Deployment', name ~ '-deployment'), 'Available')", "status"),
    )
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web-deployment"},
        "status": {
            "conditions": [{"type": "Available", "status": "False", "reason": "MinimumReplicasUnavailable"}]
        },
    }

    status = derive_status(kind(rule), PARENT, [deployment], Outcome(), NOW)

    found = conditions.find_in(status["conditions"], "DeploymentAvailable")
    assert found is not None and found["status"] == "False"


def test_custom_condition_reason_and_message_rules_are_used_and_reasons_made_camel_case() -> None:
    rule = custom(
        "child('Service', name ~ '-service') is not none",
        reason="'service exposed' if child('Service', name ~ '-service') else 'not exposed yet'",
        message="'reachable on node port ' ~ child('Service', name ~ '-service').spec.ports[0].nodePort",
    )

    found = service_available(rule, [SERVICE])

    assert (found["reason"], found["message"]) == ("ServiceExposed", "reachable on node port 30080")


def test_custom_condition_with_a_value_that_is_not_a_status_is_unknown_and_says_so() -> None:
    found = service_available(custom("spec.replicas"), [SERVICE])

    assert (found["status"], found["reason"]) == ("Unknown", "InvalidStatus")
    assert found["message"] == (
        "kind.yaml:20: conditions.ServiceAvailable.status: the rule gave 2, not true, false or nothing"
    )


def test_status_fields_are_set_from_rules_and_a_none_value_removes_the_field() -> None:
    node_port = FieldRule(
        "nodePort",
        expression("child('Service', name ~ '-service').spec.ports[0].nodePort", "fields.nodePort"),
    )

    with_service = derive_status(kind(fields=(node_port,)), PARENT, [SERVICE], Outcome(), NOW)
    without_service = derive_status(kind(fields=(node_port,)), PARENT, [], Outcome(), NOW)

    assert with_service["nodePort"] == 30080
    assert "nodePort" not in without_service


def test_status_keeps_fields_it_does_not_own_and_sets_observed_generation() -> None:
    status = derive_status(kind(), PARENT, [], Outcome(), NOW)

    assert status["lastBackup"] == "2026-02-28"
    assert status["observedGeneration"] == 2
    assert set(status) == {"lastBackup", "nodePort", "observedGeneration", "conditions"}


def test_status_field_rule_that_fails_leaves_the_field_out() -> None:
    broken = FieldRule("nodePort", expression("spec.replicas / 0", "fields.nodePort"))

    status = derive_status(kind(fields=(broken,)), PARENT, [SERVICE], Outcome(), NOW)

    assert "nodePort" not in status


def test_custom_condition_with_a_reserved_or_invalid_type_is_left_out() -> None:
    always = expression("true", "conditions.x.status")
    rules = (
        ConditionRule("Ready", always),
        ConditionRule("not a type", always),
        ConditionRule("Fine", always),
    )

    status = derive_status(kind(*rules), PARENT, [], Outcome(), NOW)

    assert [c["type"] for c in status["conditions"]] == [
        "Ready",
        "TemplatesRendered",
        "ChildrenApplied",
        "ChildrenReady",
        "Fine",
    ]
    ready = conditions.find_in(status["conditions"], "Ready")
    assert ready is not None and ready["status"] == "True"
