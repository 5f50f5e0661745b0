"""What a kind folder would do to each parent of its kind: ``stencil plan``'s per-parent decision.

``plan_parent(kind, parent, observed, ...)`` is a reconcile's render and plan steps, made
without a cluster: the parent rendered with the folder given, against the children it
controls now (``observed``, as the caller read them: one listing per child kind in a
cluster, or files), and ``planning.plan`` deciding what would be created, updated, pruned
or found in conflict.  It never raises for the parent's sake: a template error, a refused
placement or a missing required reference is the plan's ``failure``, worded as the
parent's status would word it, so a fleet of parents is planned whatever one of them does.

Unlike the reconcile, the ordering (``after:``) holds nothing back: a plan shows where the
parent ends, not the first step towards it.  For each update, ``fields`` names what
changes (``spec.template.spec.containers[0].image``), as ``planning.drift`` finds it;
a child whose rendered values all hold but whose applied hash differs lost a field the
folder no longer renders, said as ``NO_LONGER_RENDERED``.  The objects a reconcile would
send are kept in ``applies``, so a caller can ask an API server's dry run about a few.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from engine.core import door
from engine.core.decisions import referencing
from engine.core.decisions.plans import planning
from engine.core.model import apis, errors, kinds
from engine.core.model.children import placement
from engine.core.model.identity import ChildId
from engine.core.model.objects import Obj

Lookup = Callable[[referencing.Target], list[Obj]]
Namespaced = Callable[[str, str], bool]

# An update whose rendered values the live child all holds: a field the folder stopped rendering.
NO_LONGER_RENDERED = "(a field no longer rendered)"


@dataclass(frozen=True)
class Failure:
    """Why a parent would not render: where (``file:line``, the CR field) and the message."""

    where: str
    field: str
    message: str
    reason: str

    @classmethod
    def of(cls, error: errors.StencilError) -> Failure:
        return cls(error.location(), error.field or "", error.message, error.reason)

    def __str__(self) -> str:
        return ": ".join(part for part in (self.where, self.field, self.message) if part)


@dataclass(frozen=True)
class Update:
    """A live child that would change, and the fields that would."""

    child: ChildId
    fields: tuple[str, ...]


@dataclass(frozen=True)
class ParentPlan:
    """What the folder would do to one parent (``name``: ``namespace/name``, or the name alone)."""

    name: str
    failure: Failure | None = None
    creates: tuple[ChildId, ...] = ()
    updates: tuple[Update, ...] = ()
    prunes: tuple[ChildId, ...] = ()
    conflicts: tuple[str, ...] = ()
    unchanged: int = 0
    applies: tuple[Obj, ...] = ()  # what a reconcile would send, hash annotation included
    adopts: tuple[ChildId, ...] = ()  # taken over: no one's, and its template says ``adopt``
    releases: tuple[ChildId, ...] = ()  # no longer rendered, let go (``Orphan``)
    kept: tuple[ChildId, ...] = ()  # no longer rendered, kept (``Retain``, ``createOnly``)
    patches: tuple[ChildId, ...] = ()  # objects it does not own whose named fields it sets (``patch``)

    @property
    def changed(self) -> bool:
        return bool(self.creates or self.adopts or self.updates or self.prunes or self.releases)


def name_of(parent: Obj) -> str:
    """``namespace/name`` of a namespaced parent, its name alone otherwise."""
    meta = parent.get("metadata") or {}
    namespace = meta.get("namespace")
    return f"{namespace}/{meta.get('name', '')}" if namespace else str(meta.get("name", ""))


def reach_of(kind: kinds.Kind, parent: Obj) -> planning.Reach:
    """Where the parent's children may lie, as the reconcile reckons it."""
    namespace = (parent.get("metadata") or {}).get("namespace") or ""
    return planning.Reach(namespace, kind.placement.namespaces, kind.placement.cluster_scoped)


def plan_parent(
    kind: kinds.Kind,
    parent: Obj,
    observed: Sequence[Obj],
    *,
    held: Mapping[ChildId, Obj] | None = None,
    is_namespaced: Namespaced | None = None,
    lookup: Lookup | None = None,
) -> ParentPlan:
    """What rendering ``parent`` with ``kind`` and planning against ``observed`` would do.

    ``observed`` are the objects the parent may control; ``held`` the objects known by
    identity, whoever holds them (a rendered name one of them holds is a conflict);
    ``lookup`` finds what a reference reads (none: every reference finds nothing)."""
    name = name_of(parent)
    uid = str((parent.get("metadata") or {}).get("uid") or placement.NO_UID)
    parent = {**parent, "metadata": {**(parent.get("metadata") or {}), "uid": uid}}
    reach = reach_of(kind, parent)
    mine = planning.owned(observed, uid, reach)
    try:
        scope = is_namespaced or apis.builtin_is_namespaced
        resolved = door.references(kind, parent, lookup or (lambda _target: []), scope)
        made = door.render(kind, parent, mine, resolved, is_namespaced=is_namespaced)
        if made.waiting:  # the engine would render, apply and prune nothing until it is there
            raise errors.RenderError(str(resolved.missing[0]), reason=referencing.REFERENCE_NOT_FOUND)
        desired, patched = made.children, tuple(ChildId.of(one.child) for one in made.patches)
    except errors.StencilError as error:
        return ParentPlan(name, failure=Failure.of(error))
    seen = {ChildId.of(obj): obj for obj in observed}
    for child in desired:
        holder = (held or {}).get(ChildId.of(child))
        if holder is not None:
            seen.setdefault(ChildId.of(holder), holder)
    plan = planning.plan(desired, list(seen.values()), uid, reach)
    return ParentPlan(
        name,
        creates=tuple(ChildId.of(apply.obj) for apply in plan.applies if apply.create),
        adopts=tuple(ChildId.of(apply.obj) for apply in plan.applies if apply.adopt),
        updates=tuple(
            Update(ChildId.of(apply.obj), changed_fields(apply.current, apply.obj))
            for apply in plan.applies
            if apply.current is not None and not apply.adopt
        ),
        prunes=tuple(prune.child for prune in plan.prunes),
        conflicts=tuple(str(conflict) for conflict in plan.conflicts),
        unchanged=len(plan.unchanged),
        applies=tuple(apply.obj for apply in plan.applies),
        releases=tuple(release.child for release in plan.releases),
        kept=plan.kept,
        patches=patched,
    )


def changed_fields(current: Obj, target: Obj) -> tuple[str, ...]:
    """The fields an apply of ``target`` would change in ``current``: rendered values it does not
    hold, labels and annotations included; ``NO_LONGER_RENDERED`` when it holds them all."""
    fields = list(planning.drift(current, target))
    live_meta = current.get("metadata") or {}
    for part in ("labels", "annotations"):
        live = live_meta.get(part) or {}
        for key, value in sorted(((target.get("metadata") or {}).get(part) or {}).items()):
            if key != planning.HASH_ANNOTATION and live.get(key) != value:
                fields.append(f"metadata.{part}.{key}")
    return tuple(fields) or (NO_LONGER_RENDERED,)
