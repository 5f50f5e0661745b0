"""``deleteWhen``: only a plain true deletes the parent; missing data never does."""

import dataclasses
from pathlib import Path

from engine.core.decisions import rules
from engine.core.model.kinds import Kind
from engine.core.model.language.expressions import compile_expression

PARENT = {
    "apiVersion": "ops.example.com/v1",
    "kind": "Playbook",
    "metadata": {"name": "p", "uid": "u"},
    "spec": {},
}
KIND = Kind("playbook", Path("templates/playbook"), "ops.example.com/v1", "Playbook", templates=())


def with_rule(text: str) -> Kind:
    rule = compile_expression(text, file="kind.yaml", line=7, field="deleteWhen")
    return dataclasses.replace(KIND, delete_when=rule)


def test_parent_is_deleted_when_the_new_status_satisfies_the_rule() -> None:
    kind = with_rule("status.progress == 100")

    assert rules.should_delete(kind, PARENT, {"progress": 100}, rules.Read()) is True
    assert rules.should_delete(kind, PARENT, {"progress": 99}, rules.Read()) is False


def test_missing_data_never_deletes() -> None:
    kind = with_rule("child('Job', name ~ '-job').status.succeeded == 1")

    assert rules.should_delete(kind, PARENT, {}, rules.Read()) is False


def test_a_kind_without_the_rule_never_deletes() -> None:
    assert rules.should_delete(KIND, PARENT, {"progress": 100}, rules.Read()) is False
