"""``deleteWhen`` reads ``references.<id>`` as the status rules and templates do: a parent that
is done when a referenced object says so is deleted then, live (the reconcile passes its render's
references on) and offline alike.  The rule used to see no references at all."""

import dataclasses
from pathlib import Path

from engine.core import door
from engine.core.decisions import rules
from engine.core.model.kinds import Kind
from engine.core.model.language.expressions import compile_expression

PARENT = {
    "apiVersion": "ops.example.com/v1",
    "kind": "Job",
    "metadata": {"name": "j", "uid": "u"},
    "spec": {},
}
KIND = dataclasses.replace(
    Kind("job", Path("templates/job"), "ops.example.com/v1", "Job", templates=()),
    delete_when=compile_expression(
        "references.gate.data.done == 'yes'", file="kind.yaml", line=9, field="deleteWhen"
    ),
)


def test_delete_when_holds_once_the_referenced_object_says_so() -> None:
    done = {"gate": {"data": {"done": "yes"}}}
    assert rules.should_delete(KIND, PARENT, {}, rules.Read(references=done)) is True
    assert (
        rules.should_delete(KIND, PARENT, {}, rules.Read(references={"gate": {"data": {"done": "no"}}}))
        is False
    )
    assert (
        rules.should_delete(KIND, PARENT, {}, rules.Read()) is False
    )  # nothing read: missing data never deletes


def test_a_renders_outcome_carries_its_references_to_the_rule() -> None:
    resolved = door.references(KIND, PARENT, lambda _target: [], lambda *_: True)
    rendered = door.Rendered((), dataclasses.replace(resolved, values={"gate": {"data": {"done": "yes"}}}))
    outcome = rendered.outcome()
    assert rules.should_delete(
        KIND, PARENT, {}, rules.Read(origins=outcome.origins, references=outcome.references)
    )
