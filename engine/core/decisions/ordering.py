"""Ordering: which template made which child, and which children wait for others (``after:``).

A template's ``after:`` in ``kind.yaml`` names the templates whose children must
all be healthy (``health.assess(...).status == "Current"``, kstatus rules) before
its own children are *created*.  ``gate(rendered, observed, now)`` decides that,
purely, before ``planning.plan`` sees the children: the children it lets through
are planned as usual, the others wait.

Only creation waits.  A waiting template's child that already exists is kept and
updated like any other, so a dependency that turns unhealthy later (a Redis
leader restarting) never deletes or freezes the frontend that was built on it,
and, being planned, it is never pruned because it waits.  A dependency whose
template renders nothing holds nobody back.

Waiting is level-triggered like everything else: a waiting child is re-decided on
every reconcile, and the dependency's own watch events (status changes of a
child) wake the parent, so no timer is involved.

A child is known by what it was rendered as, apiVersion group, kind, namespace
and name (``identity``), matched against the observed objects; no label or
annotation records its template, since adding one would rewrite every existing
child once.  ``Origin`` pairs are how status rules find ``children.<id>``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine.core.decisions import health
from engine.core.model import apis

if TYPE_CHECKING:
    from engine.core.model.kinds import Template

Obj = dict[str, Any]
Identity = tuple[str, str, str, str]  # apiVersion group, kind, namespace, name
Origin = tuple[str, tuple[str, str, str, str]]  # template id, (apiVersion, kind, namespace, name)


def identity(api_version: str, kind: str, namespace: str, name: str) -> Identity:
    # By group, not version: the cache may hold a child at another version than the template wrote.
    return apis.group_of(api_version), kind, namespace, name


def identity_of(obj: Mapping[str, Any]) -> Identity:
    meta = obj.get("metadata") or {}
    return identity(
        str(obj.get("apiVersion", "")),
        str(obj.get("kind", "")),
        str(meta.get("namespace") or ""),
        str(meta.get("name", "")),
    )


def origins(rendered: Sequence[tuple[Template, Obj]]) -> tuple[Origin, ...]:
    """Each rendered child's template id and reference, in render order."""
    return tuple((template.id, _reference(child)) for template, child in rendered)


def _reference(child: Obj) -> tuple[str, str, str, str]:
    meta = child["metadata"]
    return child["apiVersion"], child["kind"], meta.get("namespace") or "", meta["name"]


@dataclass(frozen=True)
class Waiting:
    """A template whose missing children are not created yet, and why."""

    template: str  # its id
    children: tuple[str, ...]  # "Deployment web-frontend", the children that wait
    blockers: tuple[str, ...]  # "redis-leader (InProgress: 0/1 replicas available)"

    @property
    def message(self) -> str:
        return f"{self.template} waits for {', '.join(self.blockers)}"


@dataclass(frozen=True)
class Gate:
    """The rendered children split into those to plan now and those that wait."""

    ready: tuple[Obj, ...]  # in render order; hand these to planning.plan
    waiting: tuple[Waiting, ...] = ()


def gate(rendered: Sequence[tuple[Template, Obj]], observed: Sequence[Obj], now: str | None) -> Gate:
    """Which rendered children may be applied now: all but the missing children of a template
    whose ``after`` templates have a child that is missing or not ``Current`` at ``now``."""
    by_identity = {identity_of(obj): obj for obj in observed}
    made: dict[str, list[Obj]] = {}
    for template, child in rendered:
        made.setdefault(template.id, []).append(child)

    def blocker(needed: str) -> str | None:
        for child in made.get(needed, ()):
            found = by_identity.get(identity_of(child))
            if found is None:
                return f"{needed} (not created yet)"
            verdict = health.assess(found, now=now)
            if verdict.status != health.CURRENT:
                return f"{needed} ({verdict.status}: {verdict.message})"
        return None

    ready: list[Obj] = []
    held: dict[str, tuple[list[str], tuple[str, ...]]] = {}
    for template, child in rendered:
        exists = identity_of(child) in by_identity
        blockers = () if exists else tuple(b for dep in template.after if (b := blocker(dep)) is not None)
        if not blockers:
            ready.append(child)
            continue
        names, _ = held.setdefault(template.id, ([], blockers))
        names.append(f"{child['kind']} {child['metadata']['name']}")
    return Gate(tuple(ready), tuple(Waiting(tid, tuple(names), why) for tid, (names, why) in held.items()))
