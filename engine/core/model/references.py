"""References: objects a kind reads but does not own, as ``kind.yaml``'s ``references:`` says them.

A kind often needs an object someone else makes: a shared ConfigMap, a Secret another
team provides, a cluster setting.  Each reference names one by ``apiVersion``, ``kind``
and either a ``name`` (an expression over the parent, so a CR can say which) or a label
``selector`` (a list of every match); its ``namespace`` is the parent's unless an
expression gives another, which placement must allow (``engine.core.decisions.referencing``
decides that, per parent).  Templates and status rules read it as ``references.<id>``.

This module is the model only: what ``kind.yaml`` says, checked at load with the file,
line and field of each problem.  The schema (``engine/schemas/kind.schema.json``) checks
each entry's shape; here what it cannot say: one of ``name`` and ``selector``, ids
unique and readable as ``references.<id>``, and a status rule's ``references.<id>``
naming a reference that exists.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.core.model.errors import KindError
from engine.core.model.language import expressions
from engine.core.model.language.documents import Document
from engine.core.model.language.expressions import Expression

NAME = "references"  # how templates and status rules read them


@dataclass(frozen=True)
class Reference:
    """One entry of ``references:``: what to read, and whether its absence holds the parent back."""

    id: str
    api_version: str
    kind: str
    name: Expression | None = None  # the object's name, over the parent; None: by selector
    selector: tuple[tuple[str, str], ...] = ()  # matchLabels, sorted
    namespace: Expression | None = None  # None: the parent's namespace
    optional: bool = False
    line: int = 0  # of the entry in kind.yaml, for a message about this reference
    file: str = ""


def load(document: Document, rules: Sequence[Expression] = ()) -> tuple[Reference, ...]:
    """The ``references:`` of a validated ``kind.yaml``, or a ``KindError`` at the field it is about;
    a rule of ``rules`` reading ``references.<id>`` of none is one too (``check_read``)."""
    found: list[Reference] = []
    for index, entry in enumerate(document.data.get(NAME, ())):
        where = (NAME, index)
        if ("name" in entry) == ("selector" in entry):
            raise document.error("give exactly one of name (an expression) and selector", where)
        if entry["id"] in expressions.RESERVED_IDS:
            raise document.error(
                f"the id {entry['id']!r} cannot be read as references.{entry['id']}, a method of the mapping",
                (*where, "id"),
            )
        if any(r.id == entry["id"] for r in found):
            raise document.error(f"the reference id {entry['id']!r} is used twice", (*where, "id"))
        found.append(_reference(document, entry, where))
    check_read(found, rules)
    return tuple(found)


def _reference(document: Document, entry: dict[str, Any], where: tuple[str, int]) -> Reference:
    def expression(key: str) -> Expression | None:
        return document.expression(entry[key], (*where, key)) if key in entry else None

    labels = (entry.get("selector") or {}).get("matchLabels") or {}
    return Reference(
        id=entry["id"],
        api_version=entry["apiVersion"],
        kind=entry["kind"],
        name=expression("name"),
        selector=tuple(sorted(labels.items())),
        namespace=expression("namespace"),
        optional=entry.get("optional", False),
        line=document.line_of(where),
        file=str(document.file),
    )


def check_read(references: Sequence[Reference], rules: Sequence[Expression]) -> None:
    """A rule that reads ``references.<id>`` of no reference is a typo: say so at its line."""
    ids = {r.id for r in references}
    for rule in rules:
        unknown = sorted(expressions.child_ids_read(rule, NAME) - ids)
        if unknown:
            known = ", ".join(sorted(ids)) or "none"
            raise KindError(
                f"{NAME}.{unknown[0]}: no reference has the id {unknown[0]!r} (ids: {known})",
                file=rule.file,
                line=rule.line,
                field=rule.field,
            )
