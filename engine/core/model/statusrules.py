"""A kind's status rules: its own conditions and status fields, as kind.yaml's ``status:`` says them.

``status.conditions`` are custom conditions of the parent, each a rule for its status and, if
given, for its reason and message: one rule for every status, or a map by status (``True:``,
``False:``, ``Unknown:``) of reasons (words) and of messages (rules), so that a test is written
once and not again in each.  A condition may instead be a child's condition passed through
(``from: {child: <id>, condition: <type>}``), its status, reason and message as the child says
them.  A condition with ``gatesReady: false`` only informs, and ``Ready`` does not wait for it
(``engine.core.decisions.status``).  ``status.fields`` are ``status.<name>``, each the value of
its rule.  Every rule is an expression compiled at load, so a typo is an error at its line; a
condition type declared twice is one too, and so is one that a template whose readiness only
informs says its readiness in (``check_informing``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.core.model.language.documents import Document, FieldPath
from engine.core.model.language.expressions import Expression

STATUSES = ("True", "False", "Unknown")


@dataclass(frozen=True)
class ConditionRule:
    """A custom condition of the parent, computed from the parent and its children.

    Its reason and message are, for a status, the reason word (``reasons``) and message rule
    (``messages``) given for that status, else the rule given for every status (``reason``,
    ``message``), else the engine's."""

    type: str
    status: Expression
    reason: Expression | None = None
    message: Expression | None = None
    gates_ready: bool = True  # False: it informs, and Ready does not wait for it (``gatesReady``)
    reasons: tuple[tuple[str, str], ...] = ()
    messages: tuple[tuple[str, Expression], ...] = ()

    def said(self, status: str) -> tuple[Expression | str | None, Expression | None]:
        """The reason (a rule, a word, or none: the engine's) and the message rule for ``status``."""
        return dict(self.reasons).get(status, self.reason), dict(self.messages).get(status, self.message)

    @property
    def rules(self) -> tuple[Expression, ...]:
        """Every rule the condition runs, for whatever status."""
        given = (self.status, self.reason, self.message, *(rule for _, rule in self.messages))
        return tuple(rule for rule in given if rule is not None)


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
    for index, written in enumerate(rules):
        where = ("status", "conditions", index)
        if written["type"] in seen:
            raise document.error(f"condition {written['type']} is declared twice", (*where, "type"))
        seen.add(written["type"])
        found.append(_condition(document, where, written))
    return tuple(found)


def _condition(document: Document, where: FieldPath, rule: Mapping[str, Any]) -> ConditionRule:
    def compiled(key: str) -> Expression | None:
        text = rule.get(key)
        return document.expression(text, (*where, key)) if isinstance(text, str) else None

    reason, message = compiled("reason"), compiled("message")
    reasons = tuple(
        (status, word)
        for status, (_, word) in _by_status(document, (*where, "reason"), rule.get("reason")).items()
    )
    messages = tuple(
        (status, document.expression(text, (*where, "message", key)))
        for status, (key, text) in _by_status(document, (*where, "message"), rule.get("message")).items()
    )
    if "from" in rule:
        # The rules ``from:`` stands for, said at ``from:``; a reason or message given wins.
        status_text, reason_text, message_text = _passed_through(rule["type"], rule["from"])
        status = document.expression(status_text, (*where, "from"))
        reason = reason or document.expression(reason_text, (*where, "from"))
        message = message or document.expression(message_text, (*where, "from"))
    else:
        status = document.expression(rule["status"], (*where, "status"))
    gates = rule.get("gatesReady", True)
    return ConditionRule(rule["type"], status, reason, message, gates, reasons=reasons, messages=messages)


def _by_status(document: Document, path: FieldPath, said: Any) -> dict[str, tuple[str, Any]]:
    """A map by status (keys ``True``, ``False``, ``Unknown``, which YAML may hand over as
    ``true``/``false``) by the condition status each names, with the key it was written under;
    one status given twice (``True:`` and ``"True":``) is an error, not the last one winning."""
    if not isinstance(said, Mapping):
        return {}
    found: dict[str, tuple[str, Any]] = {}
    for key, value in said.items():
        if key.capitalize() in found:
            raise document.error(f"status {key.capitalize()} is given twice", (*path, key))
        found[key.capitalize()] = (key, value)
    return found


def _passed_through(type_: str, source: Mapping[str, str]) -> tuple[str, str, str]:
    """The rules of a condition ``from:`` a child's: its status, reason and message."""
    id_, their = source["child"], source.get("condition", type_)
    child = f"children[{id_!r}]"
    found = f"condition({child}, {their!r})"
    missing = f"{id_}: no {their} condition yet"
    return (
        f"condition_status({child}, {their!r})",
        f"{found}.reason",
        f"{found}.message if {found} is not none else {missing!r}",
    )


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
