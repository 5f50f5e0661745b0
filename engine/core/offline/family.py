"""A parent's family as a person reads it: the parent, its children, what it references and observes,
each with its health and what keeps it from being ready.

``stencil tree KIND/NAME`` prints this (``kubectl tree`` and ``crossplane trace`` are the
models); ``engine.tools.families`` reads the objects from a cluster, and everything here is a
pure function of them.  A child is judged exactly as the parent's ``ChildrenReady`` judges
it (``decisions.readiness``: its template's ``readyWhen``, else kstatus), so a line that says
``InProgress`` is the reason the parent is not Ready, in the same words.  A child the
templates render but the cluster does not have is ``Missing``; one the cluster has but the
templates no longer render (about to be pruned) is judged by kstatus and marked so.  The
parent's line is its ``Ready`` condition, status and reason, as the engine wrote it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.core.decisions import conditions, health, readiness, status
from engine.core.decisions.plans import ownership
from engine.core.decisions.referencing import Target
from engine.core.model.children import patches
from engine.core.model.identity import ChildId
from engine.core.model.kinds import Kind
from engine.core.model.objects import View
from engine.core.model.sources import lifecycle
from engine.core.offline.pictures import Edge, Node, Picture

MISSING = "Missing"
NOT_RENDERED = "not rendered: pruned at the next reconcile"


@dataclass(frozen=True)
class Family:
    """What the cluster holds of one parent, and what its templates render for it now."""

    kind: Kind
    parent: View
    rendered: Sequence[tuple[str, ChildId]]  # (template id, child), in render order
    observed: Sequence[View]  # the children the parent controls
    references: Sequence[tuple[Target, Sequence[View]]] = ()  # each target and what it finds
    related: Sequence[View] = ()  # objects of the observed kinds labelled with the parent's uid
    now: str | None = None
    # What its patch templates render, each with its template id and the object as it is (None: none).
    patches: Sequence[tuple[str, View, View | None]] = ()


@dataclass(frozen=True)
class Member:
    """One line of the tree: an object, how it stands, and why."""

    depth: int
    what: str  # Kind/name
    namespace: str
    health: str  # a kstatus status, NotReady, Missing; the parent's: Ready=<status>
    reason: str
    note: str = ""  # the template id, reference id or relation, in brackets after the name

    @property
    def tone(self) -> str:
        if self.health in (health.CURRENT, "Ready=True"):
            return "ok"
        if self.health in (health.FAILED, "Ready=False") and "Failed" in self.reason:
            return "failed"
        return "missing" if self.health in (MISSING, "Ready=-") else "waiting"


def members(family: Family) -> list[Member]:
    """The parent, then its children in render order (those not rendered after), its references and
    its related objects, one ``Member`` each."""
    parent = ChildId.of(family.parent)
    ready = conditions.find(family.parent, status.READY) or {}
    said = ": ".join(str(part) for part in (ready.get("reason"), ready.get("message")) if part)
    found = [Member(0, _what(parent), parent.namespace, f"Ready={ready.get('status', '-')}", said)]
    if family.kind.decorates is not None:  # an object it selects: it writes no status there
        found = [Member(0, _what(parent), parent.namespace, "Decorated", f"by {family.kind.name}")]
    found += _children(family)
    found += [_patched(family, template_id, patch, live) for template_id, patch, live in family.patches]
    for target, objects in family.references:
        found += _referenced(target, objects)
    for obj in family.related:
        verdict = health.assess(obj, now=family.now)
        child = ChildId.of(obj)
        found.append(Member(1, _what(child), child.namespace, verdict.status, verdict.message, "related"))
    return found


def _children(family: Family) -> list[Member]:
    by_identity = {ChildId.of(obj): obj for obj in family.observed}
    templates = {template.id: template for template in family.kind.templates}
    found = []
    for template_id, child in family.rendered:
        blocking = readiness.unready(
            templates.get(template_id), template_id, [child], by_identity, family.now
        )
        life = str(templates[template_id].lifecycle) if template_id in templates else ""
        note = f"{template_id}, {life}" if life else template_id  # [web, Orphan, createOnly]
        if not blocking:
            rules = template_id in templates and templates[template_id].ready_when
            verdict = (
                health.Health(health.CURRENT, "readyWhen holds")
                if rules
                else health.assess(by_identity[child], now=family.now)
            )
            found.append(Member(1, _what(child), child.namespace, verdict.status, verdict.message, note))
            continue
        first = blocking[0]
        shown = first.status or MISSING
        found.append(Member(1, _what(child), child.namespace, shown, first.message, note))
    rendered = {child for _, child in family.rendered}
    for child, obj in by_identity.items():
        if child not in rendered:  # kept by its lifecycle (Retain, createOnly), or about to be pruned
            verdict = health.assess(obj, now=family.now)
            kept = str(lifecycle.of(obj))
            found.append(Member(1, _what(child), child.namespace, verdict.status, NOT_RENDERED, kept))
    return found


def _patched(family: Family, template_id: str, patch: View, live: View | None) -> Member:
    """A patched object's line: whether the parent's field manager holds what its patch names there."""
    target, note = ChildId.of(patch), f"{template_id}, patch"
    if live is None:
        return Member(1, _what(target), target.namespace, MISSING, "not there: the parent waits for it", note)
    held = patches.fields_of(live, patches.manager(family.kind.name, family.parent))
    if held is None or ownership.taken(held, patch):
        return Member(1, _what(target), target.namespace, "NotPatched", "the patch is not applied yet", note)
    return Member(1, _what(target), target.namespace, "Patched", "holds what the patch names", note)


def _referenced(target: Target, objects: Sequence[View]) -> list[Member]:
    note = f"references.{target.id}"
    if not objects:
        said = (
            "optional, not there"
            if target.optional or target.selector
            else "not found: the parent waits for it"
        )
        what = f"{target.where.kind}/{target.where.name or _labels(target)}"
        return [Member(1, what, target.where.namespace, MISSING, said, note)]
    found = []
    for obj in objects:
        verdict = health.assess(obj)
        child = ChildId.of(obj)
        found.append(Member(1, _what(child), child.namespace, verdict.status, verdict.message, note))
    return found


def text(found: Sequence[Member]) -> str:
    """The tree as ``kubectl tree`` prints one: a namespace column, the name indented under its parent,
    the health and the reason."""
    names = []
    for index, member in enumerate(found):
        last = all(other.depth < member.depth for other in found[index + 1 :])
        branch = ("└── " if last else "├── ") if member.depth else ""
        names.append(branch + member.what + (f" [{member.note}]" if member.note else ""))
    rows = [("NAMESPACE", "NAME", "HEALTH", "REASON")]
    rows += [(m.namespace or "-", name, m.health, m.reason) for m, name in zip(found, names, strict=True)]
    widths = [max(len(row[column]) for row in rows) for column in range(3)]
    return "".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row[:3], widths, strict=True))
        + "  "
        + row[3]
        + "\n"
        for row in rows
    ).replace("  \n", "\n")


def picture(found: Sequence[Member]) -> Picture:
    """The tree as boxes: each object coloured by its health, an arrow from the parent to each."""
    nodes, edges = [], []
    for index, member in enumerate(found):
        lines = (
            member.what,
            *([f"[{member.note}]"] if member.note else []),
            member.health,
            _short(member.reason),
        )
        role = "parent" if index == 0 else "reference" if member.note.startswith("references.") else "child"
        nodes.append(Node(f"m{index}", lines, "related" if member.note == "related" else role, member.tone))
        if index:
            dashed = role == "reference" or member.note == "related"
            edges.append(Edge("m0", f"m{index}", style="dashed" if dashed else "solid"))
    title = found[0].what if found else "tree"
    return Picture(title, tuple(nodes), tuple(edges))


def _what(child: ChildId) -> str:
    return f"{child.kind}/{child.name}"


def _labels(target: Target) -> str:
    return ",".join(f"{key}={value}" for key, value in target.selector)


def _short(reason: str, most: int = 60) -> str:
    return reason if len(reason) <= most else reason[: most - 1] + "…"
