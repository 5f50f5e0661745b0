"""Whether a template's children are ready: its ``readyWhen`` rules when it has them, else kstatus.

One answer for the two questions that need it: the parent's ``ChildrenReady``
(``status``) and whether a template that waits for this one (``after:``) may create its
children (``ordering``).  A Job is the example that needs the rules: kstatus calls a
running Job ``Current``, where the template that waits for it wants it to have
succeeded (``readyWhen: child.status.succeeded >= 1``).

A child that does not exist yet is never ready.  With ``readyWhen``, kstatus is not
asked: the rules decide, and only a rule's plain ``true`` is ready (missing data, which
reads as none, is "not yet").  A rule that reads ``each`` is judged for every item of a
collection; one that reads only ``all`` is judged once, for the collection.  A template
that renders nothing holds nobody back and has nothing to report.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine.core.decisions import health
from engine.core.model.errors import KindError
from engine.core.model.identity import ChildId
from engine.core.model.objects import View
from engine.core.model.sources import shapes

if TYPE_CHECKING:
    from engine.core.model.kinds import Template
    from engine.core.model.language.expressions import Expression

NOT_READY = "NotReady"  # the status a child whose readyWhen does not hold is reported with


@dataclass(frozen=True)
class Unready:
    """A child (or a whole collection: ``child`` None) that is not ready, and why."""

    template: str  # the id of the template that made it
    child: ChildId | None
    status: str | None  # its kstatus, NOT_READY for a readyWhen, None while it is not created yet
    message: str

    @property
    def failed(self) -> bool:
        return self.status == health.FAILED

    def __str__(self) -> str:
        what = f"{self.child.kind} {self.child.name}" if self.child is not None else f"{self.template} (all)"
        return f"{what}: {self.message}"


def unready(
    template: Template | None,
    template_id: str,
    rendered: Sequence[ChildId],
    by_identity: Mapping[ChildId, View],
    now: str | None,
) -> list[Unready]:
    """What of the children ``template`` rendered (``rendered``, by identity) is not ready at ``now``.

    ``template`` None (a child whose template is not known) is judged by kstatus.
    """
    rules = template.ready_when if template is not None else ()
    found: list[Unready] = []
    present: list[tuple[ChildId, View]] = []
    for child in rendered:
        obj = by_identity.get(child)
        if obj is None:
            found.append(Unready(template_id, child, None, "not created yet"))
        elif rules:
            present.append((child, obj))
        elif not (verdict := health.assess(obj, now=now)).current:
            found.append(Unready(template_id, child, verdict.status, verdict.message))
    collection = template is not None and template.collection
    items = [obj for _, obj in present]
    for rule in rules:
        if collection and shapes.EACH not in rule.reads:
            found.extend(_judge(rule, {shapes.ALL: items}, template_id, None) if present else ())
            continue
        for child, obj in present:
            names = {shapes.EACH: obj, shapes.ALL: items} if collection else {shapes.CHILD: obj}
            found.extend(_judge(rule, names, template_id, child))
    return found


def _judge(rule: Expression, names: dict[str, Any], template_id: str, child: ChildId | None) -> list[Unready]:
    """Nothing when ``rule`` holds for ``names``; else why not, at the rule's line."""
    try:
        value = rule.evaluate(names)
    except KindError as error:
        return [Unready(template_id, child, NOT_READY, str(error))]
    if value is True:
        return []
    where = f"{rule.file}:{rule.line}"
    said = "does not hold" if value in (False, None) else f"gave {value!r}, not true or false"
    return [Unready(template_id, child, NOT_READY, f"readyWhen {rule.text!r} {said} ({where})")]
