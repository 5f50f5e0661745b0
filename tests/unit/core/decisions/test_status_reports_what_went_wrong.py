"""A broken kind, a template error, a failed apply or a taken name each show as a condition."""

import dataclasses
from typing import Any

from engine.core.decisions import conditions
from engine.core.decisions.plans.planning import Conflict
from engine.core.decisions.status import Outcome, derive_status
from engine.core.model.errors import ApiError, KindError, RenderError
from engine.core.model.identity import ChildId
from engine.core.model.kinds import ConditionRule, FieldRule
from engine.core.model.language.expressions import compile_expression
from tests.unit import _kinds

NOW = "2026-03-01T12:00:00Z"
KIND = _kinds.deploywebservice(
    conditions=(
        ConditionRule(
            "ServiceAvailable",
            compile_expression(
                "health(child('Service', name ~ '-service')) == 'Current'",
                file="kind.yaml",
                line=11,
                field="conditions.ServiceAvailable.status",
            ),
        ),
    ),
    fields=(
        FieldRule(
            "nodePort",
            compile_expression(
                "child('Service', name ~ '-service').spec.ports[0].nodePort",
                file="kind.yaml",
                line=14,
                field="fields.nodePort",
            ),
        ),
    ),
)
PARENT = _kinds.shop_web(4, status={"nodePort": 30080})
SERVICE = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "web-service", "namespace": "shop"},
    "spec": {"type": "NodePort", "ports": [{"port": 80, "nodePort": 30080}]},
}
DESIRED = (
    ChildId("apps", "v1", "Deployment", "shop", "web-deployment"),
    ChildId("", "v1", "Service", "shop", "web-service"),
)


def summary(status: dict[str, Any]) -> dict[str, tuple[str, str]]:
    return {c["type"]: (c["status"], c["reason"]) for c in status["conditions"]}


def message(status: dict[str, Any], type_: str) -> str:
    found = conditions.find_in(status["conditions"], type_)
    assert found is not None
    return str(found["message"])


def test_render_error_is_reported_with_its_file_and_line() -> None:
    error = RenderError(
        "'spec' has no attribute 'replica'", file="deployment.yaml", line=8, field="spec.replica"
    )

    status = derive_status(KIND, PARENT, [SERVICE], Outcome(render_error=error), NOW)

    assert summary(status) == {
        "Ready": ("False", "RenderFailed"),
        "TemplatesRendered": ("False", "RenderFailed"),
        "ChildrenApplied": ("Unknown", "NotRendered"),
        "ChildrenReady": ("Unknown", "NotRendered"),
        "ServiceAvailable": ("True", "Satisfied"),
        "Stalled": ("True", "RenderFailed"),
    }
    expected = "deployment.yaml:8: spec.replica: 'spec' has no attribute 'replica'"
    assert message(status, "TemplatesRendered") == expected
    assert message(status, "Ready") == expected
    assert status["nodePort"] == 30080


def test_invalid_kind_is_reported_and_its_rules_are_not_trusted() -> None:
    error = KindError("duplicate key 'conditions'", file="templates/deploywebservice/kind.yaml", line=3)

    status = derive_status(KIND, PARENT, [SERVICE], Outcome(kind_error=error), NOW)

    assert summary(status) == {
        "Ready": ("False", "InvalidKind"),
        "TemplatesRendered": ("False", "InvalidKind"),
        "ChildrenApplied": ("Unknown", "NotRendered"),
        "ChildrenReady": ("Unknown", "NotRendered"),
        "ServiceAvailable": ("Unknown", "InvalidKind"),
        "Stalled": ("True", "InvalidKind"),
    }
    assert message(status, "Ready") == "templates/deploywebservice/kind.yaml:3: duplicate key 'conditions'"
    # The last good value stays rather than vanishing because the kind broke.
    assert status["nodePort"] == 30080


def test_child_conflict_names_the_object_that_holds_the_name() -> None:
    taken = Conflict(DESIRED[0], "is controlled by ReplicaSet other")

    status = derive_status(KIND, PARENT, [SERVICE], Outcome(conflicts=(taken,), desired=DESIRED), NOW)

    assert summary(status)["ChildrenApplied"] == ("False", "ChildConflict")
    assert summary(status)["Ready"] == ("False", "ChildConflict")
    assert message(status, "Ready") == "Deployment shop/web-deployment is controlled by ReplicaSet other"


def test_apply_error_is_reported_with_the_api_servers_reason() -> None:
    error = ApiError(
        422,
        'Service "web-service" is invalid: spec.ports[0].nodePort: Invalid value: 80',
        {"reason": "Invalid"},
    )

    status = derive_status(KIND, PARENT, [SERVICE], Outcome(apply_error=error, desired=DESIRED), NOW)

    assert summary(status)["ChildrenApplied"] == ("False", "Invalid")
    assert message(status, "ChildrenApplied").startswith('422 Service "web-service" is invalid')
    assert summary(status)["TemplatesRendered"] == ("True", "Rendered")


def test_status_rule_that_fails_makes_its_condition_unknown_with_the_location() -> None:
    broken = ConditionRule(
        "ServiceAvailable",
        compile_expression(
            "spec.replicas / 0", file="kind.yaml", line=11, field="conditions.ServiceAvailable"
        ),
    )
    kind = dataclasses.replace(KIND, conditions=(broken,))

    status = derive_status(kind, PARENT, [SERVICE], Outcome(desired=(DESIRED[1],)), NOW)

    assert summary(status)["ServiceAvailable"] == ("Unknown", "ExpressionFailed")
    assert message(status, "ServiceAvailable").startswith("kind.yaml:11: conditions.ServiceAvailable:")
    assert summary(status)["Ready"] == ("Unknown", "ExpressionFailed")
