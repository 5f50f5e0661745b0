"""A kind's status rules: its own conditions and status fields, as kind.yaml's ``status:`` says them.

``status.conditions`` are custom conditions of the parent, each a rule for its status and, if
given, for its reason and message; a condition with ``gatesReady: false`` only informs, and
``Ready`` does not wait for it (``engine.core.decisions.status``).  ``status.fields`` are
``status.<name>``, each the value of its rule.  Every rule is an expression compiled at load,
so a typo is an error at its line; a condition type declared twice is one too, and so is one that
a template whose readiness only informs says its readiness in (``check_informing``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.core.model.documents import Document
from engine.core.model.expressions import Expression


@dataclass(frozen=True)
class ConditionRule:
    """A custom condition of the parent, computed from the parent and its children."""

    type: str
    status: Expression
    reason: Expression | None = None
    message: Expression | None = None
    gates_ready: bool = True  # False: it informs, and Ready does not wait for it (``gatesReady``)


@dataclass(frozen=True)
class FieldRule:
    """A status field of the parent: ``status.<name>`` = value of the expression."""

    name: str
    value: Expression


def load(
    document: Document, status: Mapping[str, Any]
) -> tuple[tuple[ConditionRule, ...], tuple[FieldRule, ...]]:
    """The conditions and fields of kind.yaml's ``status:`` (the schema checked their shape)."""
    fields = tuple(
        FieldRule(name, document.expression(value, ("status", "fields", name)))
        for name, value in status.get("fields", {}).items()
    )
    return _conditions(document, status.get("conditions", [])), fields


def _conditions(document: Document, rules: list[dict[str, Any]]) -> tuple[ConditionRule, ...]:
    seen: set[str] = set()
    found = []
    for index, rule in enumerate(rules):
        where = ("status", "conditions", index)
        if rule["type"] in seen:
            raise document.error(f"condition {rule['type']} is declared twice", (*where, "type"))
        seen.add(rule["type"])
        optional = {
            key: document.expression(rule[key], (*where, key)) for key in ("reason", "message") if key in rule
        }
        value = document.expression(rule["status"], (*where, "status"))
        found.append(ConditionRule(rule["type"], value, **optional, gates_ready=rule.get("gatesReady", True)))
    return tuple(found)


ENGINE_TYPES = ("Ready", "TemplatesRendered", "ChildrenApplied", "ChildrenReady", "Reconciling", "Stalled")


def check_informing(
    document: Document, informing: Sequence[tuple[int, str]], conditions: Sequence[ConditionRule]
) -> None:
    """A template whose readiness only informs (``gatesReady: false``; ``informing``: its index in
    ``templates:`` and its condition's type) says it in a condition of its own, which may be
    neither one of the engine's nor a custom condition of kind.yaml."""
    custom = {rule.type for rule in conditions}
    for index, type_ in informing:
        if type_ in ENGINE_TYPES or type_ in custom:
            whose = "the engine's own" if type_ in ENGINE_TYPES else "a condition of status.conditions too"
            raise document.error(
                f"its readiness would be said as {type_}, which is {whose}", ("templates", index)
            )
