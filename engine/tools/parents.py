"""How a parent reads to a person: is it Ready, why not, what it waits for, how old it is.

``stencil dev`` shows one row per parent and ``stencil test`` says why an example
timed out; both read the same few facts off the parent's status, so they are read
here, once, as pure functions of the parent object (and of the time, for the age).
What the conditions mean is ``engine.core.decisions.status``'s: ``Ready`` carries the reason
and message of the first dependent that is not True, so the dependent itself is
found again by that rule, and a ``ChildrenReady`` message names the children it
waits for, one ``Kind name: why`` clause each, joined by ``; ``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from engine.core.decisions import conditions, status


@dataclass(frozen=True)
class Row:
    """One parent as ``stencil dev`` lists it."""

    kind: str
    name: str  # namespace/name, or the name alone for a cluster-scoped parent
    ready: str  # the Ready condition's status, or "-" before the engine wrote any
    reason: str
    blocking: str  # what Ready waits for: a child, or the condition that is not True
    age: str


def rows(parents: Iterable[Mapping[str, Any]], now: datetime) -> list[Row]:
    """One row per parent, sorted by kind, namespace and name."""
    found = []
    for parent in parents:
        ready = conditions.find(parent, status.READY)
        found.append(
            Row(
                kind=str(parent.get("kind", "")),
                name=_name(parent),
                ready=str(ready.get("status", "")) if ready else "-",
                reason=str(ready.get("reason", "")) if ready else "",
                blocking=blocking(parent),
                age=age(str((parent.get("metadata") or {}).get("creationTimestamp") or ""), now),
            )
        )
    return sorted(found, key=lambda row: (row.kind, row.name))


def ready_at_generation(parent: Mapping[str, Any]) -> bool:
    """Ready is True, and says so of the parent's current spec (its ``observedGeneration``)."""
    ready = conditions.find(parent, status.READY)
    generation = (parent.get("metadata") or {}).get("generation")
    return (
        ready is not None
        and ready.get("status") == conditions.TRUE
        and ready.get("observedGeneration") == generation
    )


def blocking(parent: Mapping[str, Any]) -> str:
    """What keeps the parent from being Ready, in a few words; empty when it is Ready.

    The first child a ``ChildrenReady`` or ``ChildrenApplied`` condition names, else the
    condition that is not True with its message.
    """
    if ready_at_generation(parent):
        return ""
    ready = conditions.find(parent, status.READY)
    if ready is None:
        return "not reconciled yet"
    generation = (parent.get("metadata") or {}).get("generation")
    if ready.get("observedGeneration") != generation:
        return f"generation {generation} not reconciled yet"
    condition = _blocking_condition(parent)
    if condition is None:
        return str(ready.get("message") or ready.get("reason") or "")
    message = str(condition.get("message") or condition.get("reason") or "")
    if condition.get("type") in (status.CHILDREN_READY, status.CHILDREN_APPLIED):
        return message.split("; ", 1)[0]
    return f"{condition.get('type')}: {message}"


def why_not_ready(parent: Mapping[str, Any]) -> str:
    """A sentence for a report: Ready's status and reason, and every clause of its message."""
    ready = conditions.find(parent, status.READY)
    if ready is None:
        return "the engine has not written a Ready condition"
    text = f"Ready is {ready.get('status')} ({ready.get('reason', '')})"
    generation = (parent.get("metadata") or {}).get("generation")
    if ready.get("observedGeneration") != generation:
        text += f" of generation {ready.get('observedGeneration')}, not the current {generation}"
    message = ready.get("message")
    return f"{text}: {message}" if message else text


def age(created: str, now: datetime) -> str:
    """A short age of an RFC 3339 timestamp: seconds up to two minutes, then minutes up to two
    hours, hours up to two days, then days (``45s``, ``12m``, ``3h``, ``5d``)."""
    if not created:
        return ""
    try:
        seconds = int((now - datetime.fromisoformat(created.replace("Z", "+00:00"))).total_seconds())
    except ValueError:
        return ""
    seconds = max(seconds, 0)
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= 2 * size:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def _blocking_condition(parent: Mapping[str, Any]) -> dict[str, Any] | None:
    """The dependent ``Ready`` took its reason from: the first False one, else the first not True."""
    dependents = [c for c in conditions.of(parent) if c.get("type") != status.READY]
    return next((c for c in dependents if c.get("status") == conditions.FALSE), None) or next(
        (c for c in dependents if c.get("status") != conditions.TRUE), None
    )


def _name(parent: Mapping[str, Any]) -> str:
    meta = parent.get("metadata") or {}
    namespace = meta.get("namespace")
    return f"{namespace}/{meta.get('name', '')}" if namespace else str(meta.get("name", ""))
