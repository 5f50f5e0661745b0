"""Ordering: which template made which child, and which children wait for others (``after:``).

A template's ``after:`` in ``kind.yaml`` names the templates whose children must
all be ready (``readiness``: their ``readyWhen`` rules hold, or, without rules, kstatus
calls them ``Current``) before its own children are *created*; so does each
``children.<id>`` the template reads (``Template.waits_for``, inferred by
``engine.core.model.sources.dependencies``).  ``gate(rendered, observed, now)`` decides that,
purely, before ``planning.plan`` sees the children: the children it lets through are
planned as usual, the others wait.

Only creation waits.  A waiting template's child that already exists is kept and
updated like any other, so a dependency that turns unhealthy later (a Redis
leader restarting) never deletes or freezes the frontend that was built on it,
and, being planned, it is never pruned because it waits.  A dependency whose
template renders nothing holds nobody back.

Waiting is level-triggered like everything else: a waiting child is re-decided on
every reconcile, and the dependency's own watch events (status changes of a
child) wake the parent, so no timer is involved.

A child is known by what it was rendered as, apiVersion group, kind, namespace
and name (``identity.ChildId``), matched against the observed objects; no label or
annotation records its template, since adding one would rewrite every existing
child once.  ``Origin`` values are how status rules find ``children.<id>``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.core.decisions import readiness
from engine.core.model.identity import ChildId
from engine.core.model.objects import Obj

if TYPE_CHECKING:
    from engine.core.model.kinds import Template


@dataclass(frozen=True)
class Origin:
    """Which template rendered a child: how status rules find ``children.<id>``."""

    template: str  # the template's id
    child: ChildId


def origins(rendered: Sequence[tuple[Template, Obj]]) -> tuple[Origin, ...]:
    """Each rendered child's template id and identity, in render order."""
    return tuple(Origin(template.id, ChildId.of(child)) for template, child in rendered)


@dataclass(frozen=True)
class Blocker:
    """A template some children wait for, and why: its child is missing or not ready."""

    template: str  # its id
    status: str | None = None  # the child's kstatus; None while it is not created yet
    message: str = ""

    def __str__(self) -> str:
        if self.status is None:
            return f"{self.template} (not created yet)"
        return f"{self.template} ({self.status}: {self.message})"


@dataclass(frozen=True)
class Waiting:
    """A template whose missing children are not created yet, and why."""

    template: str  # its id
    children: tuple[ChildId, ...]  # the children that wait
    blockers: tuple[Blocker, ...]

    def __str__(self) -> str:
        return f"{self.template} waits for {', '.join(map(str, self.blockers))}"


@dataclass(frozen=True)
class Gate:
    """The rendered children split into those to plan now and those that wait."""

    ready: tuple[Obj, ...]  # in render order; hand these to planning.plan
    waiting: tuple[Waiting, ...] = ()


def gate(rendered: Sequence[tuple[Template, Obj]], observed: Sequence[Obj], now: str | None) -> Gate:
    """Which rendered children may be applied now: all but the missing children of a template
    whose ``waits_for`` templates have a child that is missing or not ready at ``now``
    (``readiness``: its template's ``readyWhen``, else kstatus ``Current``)."""
    by_identity = {ChildId.of(obj): obj for obj in observed}
    made: dict[str, list[ChildId]] = {}
    templates: dict[str, Template] = {}
    for template, child in rendered:
        made.setdefault(template.id, []).append(ChildId.of(child))
        templates[template.id] = template

    def blocker(needed: str) -> Blocker | None:
        found = readiness.unready(templates.get(needed), needed, made.get(needed, ()), by_identity, now)
        if not found or found[0].status is None:
            return Blocker(needed) if found else None
        return Blocker(needed, found[0].status, found[0].message)

    ready: list[Obj] = []
    held: dict[str, tuple[list[ChildId], tuple[Blocker, ...]]] = {}
    for template, child in rendered:
        exists = ChildId.of(child) in by_identity
        waits = [dep for dep in template.waits_for if dep in template.after or _gates(templates.get(dep))]
        blockers = () if exists else tuple(b for dep in waits if (b := blocker(dep)) is not None)
        if not blockers:
            ready.append(child)
            continue
        names, _ = held.setdefault(template.id, ([], blockers))
        names.append(ChildId.of(child))
    return Gate(tuple(ready), tuple(Waiting(tid, tuple(names), why) for tid, (names, why) in held.items()))


def _gates(template: Template | None) -> bool:
    """Whether a template read through ``children.<id>`` is waited for: unless its readiness only
    informs (``gatesReady: false``), whose children are read as they are."""
    return template is None or template.gates_ready
