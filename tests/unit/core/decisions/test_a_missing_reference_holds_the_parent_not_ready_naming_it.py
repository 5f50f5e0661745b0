"""While a required reference is missing, the parent's ChildrenApplied is False with reason
ReferenceNotFound naming the object, Ready says the same, and nothing claims the templates
rendered or the children are ready; status rules read what the references found by id."""

from __future__ import annotations

from engine.core.decisions import conditions, referencing, status
from engine.core.model.identity import ChildId
from engine.core.model.kinds import FieldRule
from engine.core.model.language import expressions
from tests.unit import _kinds
from tests.unit import _references as refs

NOW = "2026-01-01T00:00:00Z"
ECHO_CONFIG = ChildId("", "v1", "ConfigMap", "shop", "echo-config")
MISSING = referencing.Missing(referencing.Target("config", ECHO_CONFIG))


def _conditions(outcome: status.Outcome) -> dict[str, tuple[str, str, str]]:
    kind = _kinds.status_kind("echo", _kinds.API_VERSION, _kinds.KIND)
    derived = status.derive_status(kind, refs.parent(), [], outcome, NOW)
    return {c["type"]: (c["status"], c["reason"], c["message"]) for c in derived["conditions"]}


def test_a_missing_reference_is_said_on_children_applied_and_ready() -> None:
    found = _conditions(status.Outcome(missing=(MISSING,)))
    said = "reference config: ConfigMap v1 shop/echo-config not found"
    assert found[status.CHILDREN_APPLIED] == (conditions.FALSE, "ReferenceNotFound", said)
    assert found[status.READY][:2] == (conditions.FALSE, "ReferenceNotFound")
    assert said in found[status.READY][2]
    assert found[status.TEMPLATES_RENDERED][:2] == (conditions.UNKNOWN, "ReferenceNotFound")
    assert found[status.CHILDREN_READY][:2] == (conditions.UNKNOWN, "ReferenceNotFound")


def test_with_every_reference_found_nothing_is_said_of_them() -> None:
    found = _conditions(status.Outcome(references={"config": refs.config_map("echo-config")}))
    assert found[status.CHILDREN_APPLIED][:2] == (conditions.TRUE, "Applied")


def test_a_status_rule_reads_a_reference_by_id() -> None:
    rule = expressions.compile_expression("references.config.data.ECHO", file="k", line=1, field="f")
    kind = _kinds.status_kind("echo", _kinds.API_VERSION, _kinds.KIND, fields=(FieldRule("echo", rule),))
    outcome = status.Outcome(references={"config": refs.config_map("echo-config")})
    assert status.derive_status(kind, refs.parent(), [], outcome, NOW)["echo"] == "echo-config"
