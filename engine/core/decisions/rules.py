"""A kind's rules read for one parent: the scope they share, its conditions and status fields as
they mark the parent's status, ``deleteWhen``, and those that fail.

Every rule of ``kind.yaml`` (a condition's status, reason and message, a status field,
``deleteWhen``) reads one scope (``scope``): the parent, its observed children and related
objects, ``children.<id>`` and ``references.<id>``, as the templates read them
(``engine.core.decisions.context``).

Live, a rule that raises (a filter given the wrong type, a field of a string read) must
not stop the reconcile: its condition reads ``Unknown`` with ``ExpressionFailed``, its
field is left out (``engine.core.decisions.status``), and ``deleteWhen`` deletes nothing.
That is right for a parent, and wrong for the author who asks ``stencil lint`` or ``stencil
render --status`` whether the rules work: there a failure is an error at the rule's file
and line (``failures``).  A condition rule whose value is not true, false or nothing is one
too.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.core.decisions import conditions
from engine.core.decisions.context import status_context
from engine.core.decisions.plans import ordering
from engine.core.model.children import confidential
from engine.core.model.errors import KindError, StencilError
from engine.core.model.kinds import ConditionRule, Kind
from engine.core.model.language import expressions

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Read:
    """What the rules read besides the parent: its observed children and related objects, the time
    ``health()`` judges at, ``children.<id>`` (``origins``, ``Outcome.origins``) and
    ``references.<id>`` (``Outcome.references``)."""

    observed: Sequence[Mapping[str, Any]] = ()
    related: Sequence[Mapping[str, Any]] = ()
    now: str | None = None
    origins: Sequence[ordering.Origin] = ()
    references: Mapping[str, Any] | None = None


def scope(kind: Kind, parent: Mapping[str, Any], read: Read) -> expressions.Scope:
    """What every rule of the kind reads for ``parent``: one scope, the same names."""
    return expressions.Scope(
        status_context(
            dict(parent),
            [dict(obj) for obj in read.observed],
            [dict(obj) for obj in read.related],
            read.now,
            origins=read.origins,
            templates=kind.templates,
            references=read.references,
        )
    )


def should_delete(kind: Kind, parent: Mapping[str, Any], new_status: Mapping[str, Any], read: Read) -> bool:
    """Whether the kind's ``deleteWhen`` rule holds for the parent with its new status, reading
    what the status rules read.  Only a plain ``true`` deletes: missing data (``None``) or an
    error never does."""
    if kind.delete_when is None:
        return False
    try:
        return kind.delete_when.evaluate(scope(kind, {**parent, "status": dict(new_status)}, read)) is True
    except StencilError as error:
        log.warning("deleteWhen of %s: %s", kind.name, error)
        return False


def failures(
    kind: Kind, parent: Mapping[str, Any], new_status: Mapping[str, Any], read: Read
) -> list[KindError]:
    """Each rule of ``kind`` that fails for ``parent`` (what ``derive_status`` reads; ``deleteWhen``
    with ``new_status``), at its line."""
    context = scope(kind, parent, read)
    found: list[KindError] = []
    for rule in kind.conditions:
        value = _run(rule.status, context, found)
        if value is not _FAILED and verdict(value) is None:
            message = f"the rule of condition {rule.type} gave {value!r}, not true, false or nothing"
            found.append(
                KindError(message, file=rule.status.file, line=rule.status.line, field=rule.status.field)
            )
        for text in rule.said(verdict(value) or conditions.UNKNOWN):
            if isinstance(text, expressions.Expression):
                _run(text, context, found)
    for field in kind.fields:
        _run(field.value, context, found)
    if kind.delete_when is not None:
        _run(kind.delete_when, scope(kind, {**parent, "status": dict(new_status)}, read), found)
    return found


_FAILED = object()


def _run(rule: expressions.Expression, read: expressions.Scope, found: list[KindError]) -> Any:
    try:
        return rule.evaluate(read)
    except KindError as error:
        found.append(error)
        return _FAILED


def verdict(value: Any) -> str | None:
    """A condition rule's value as a condition status (none: ``Unknown``), or None when it is not one."""
    if value is None:
        return conditions.UNKNOWN
    if isinstance(value, bool):
        return conditions.TRUE if value else conditions.FALSE
    if isinstance(value, str):
        # condition_status() hands back "True"/"False"/"Unknown"; accept any case.
        return {s.lower(): s for s in conditions.STATUSES}.get(value.strip().lower())
    return None


def mark_custom(
    manager: conditions.ConditionManager,
    rule: ConditionRule,
    context: expressions.Scope,
    secrets: frozenset[str] = frozenset(),
) -> None:
    try:
        value = rule.status.evaluate(context)
        status = verdict(value)
        said_reason, said_message = rule.said(status or conditions.UNKNOWN)
        reason = (
            said_reason.evaluate(context) if isinstance(said_reason, expressions.Expression) else said_reason
        )
        message = said_message.evaluate(context) if said_message is not None else None
    except KindError as error:
        manager.mark_unknown(
            rule.type, conditions.reason_of(error, "ExpressionFailed"), conditions.clip(str(error))
        )
        return
    if status is None:
        where = f"{rule.status.file}:{rule.status.line}: {rule.status.field}"
        message = f"{where}: the rule gave {value!r}, not true, false or nothing"
        manager.mark_unknown(rule.type, "InvalidStatus", conditions.clip(message))
        return
    text = rule.status.text
    default_reason, default_message = {
        conditions.TRUE: ("Satisfied", f"{text} is true"),
        conditions.FALSE: ("NotSatisfied", f"{text} is false"),
        conditions.UNKNOWN: ("Unknown", f"{text} cannot be told yet: the data it reads is missing"),
    }[status]
    reason_text = (
        conditions.reason_from(str(reason), default_reason) if reason is not None else default_reason
    )
    message_text = conditions.clip(str(message)) if message is not None else default_message
    if confidential.holds([reason_text, message_text], secrets):
        said = said_message or (
            said_reason if isinstance(said_reason, expressions.Expression) else rule.status
        )
        message_text = f"{said.file}:{said.line}: {said.field}: {confidential.IN_STATUS}"
        reason_text = "SecretInStatus"
    if status == conditions.TRUE:
        manager.mark_true(rule.type, reason_text, message_text)
    elif status == conditions.FALSE:
        manager.mark_false(rule.type, reason_text, message_text)
    else:
        manager.mark_unknown(rule.type, reason_text, message_text)


def _field_value(rule: expressions.Expression, context: expressions.Scope) -> Any:
    try:
        return rule.evaluate(context)
    except KindError as error:
        # A status field has no condition of its own to carry the error; the
        # field is left out so a wrong value is never shown.
        log.warning("status field rule failed: %s", error)
        return None


def set_fields(
    status: dict[str, Any], kind: Kind, context: expressions.Scope, secrets: frozenset[str] = frozenset()
) -> None:
    """The kind's ``fields:``, recomputed from scratch: a rule that yields nothing removes its field,
    and so does one whose value holds what was read from a Secret (said in the log, never quoted)."""
    for field_rule in kind.fields:
        status.pop(field_rule.name, None)
        value = _field_value(field_rule.value, context)
        if value is not None and confidential.holds(value, secrets):
            rule = field_rule.value
            log.warning("%s:%s: %s: %s", rule.file, rule.line, rule.field, confidential.IN_STATUS)
        elif value is not None:
            status[field_rule.name] = value
