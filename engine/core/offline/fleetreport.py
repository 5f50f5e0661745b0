"""A fleet's plans summed up for a reviewer: ``stencil plan``'s text and JSON, pure.

``summarize`` groups the ``fleet.ParentPlan`` of every parent into what a pull request's
reader needs, counts first and a few names after: how many parents change, stay or fail;
each child field that changes and for how many parents; each distinct render failure
(identical file, line, field and message are one group); the children created and pruned
by kind; the conflicts; and what the API server refused in a dry run of a sample.

``sample`` picks that sample: a few parents per distinct *shape* of change (an update of
the same fields of the same kind of child, or a create of a kind), since parents that
change the same way are refused the same way, and asking the server about all of them
would make a plan of thousands of parents take minutes.

``as_json`` is the documented shape for CI (``docs/plan.md``); ``text`` says the same, the kind's
API (``api``: its new CRD against the installed one, ``crdchanges``) before the parents.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from engine.core.model.identity import ChildId
from engine.core.model.objects import Obj
from engine.core.offline import crdchanges
from engine.core.offline.fleet import Failure, ParentPlan

EXAMPLES = 3  # names shown per group
SCHEMA = 1  # the JSON shape's version: raised when a key changes meaning or goes


@dataclass(frozen=True)
class Refusal:
    """A sampled apply the API server's dry run refused, with its message."""

    parent: str
    child: str
    message: str


@dataclass(frozen=True)
class Group:
    """Parents (``count``; the first few by name in ``examples``) that share one thing: ``what``."""

    what: tuple[str, ...]
    count: int
    examples: tuple[str, ...]
    children: int = 0  # for creates and prunes: how many children, of ``count`` parents


@dataclass(frozen=True)
class Summary:
    kind: str
    total: int
    changed: int
    failed: int
    fields: tuple[Group, ...] = ()  # what: (child kind, field)
    failures: tuple[Group, ...] = ()  # what: (where, field, message)
    creates: tuple[Group, ...] = ()  # what: (child kind,); examples: children
    prunes: tuple[Group, ...] = ()
    adopts: tuple[Group, ...] = ()  # no one's, taken over (adopt)
    releases: tuple[Group, ...] = ()  # no longer rendered, let go (Orphan)
    kept: tuple[Group, ...] = ()  # no longer rendered, kept (Retain, createOnly)
    patches: tuple[Group, ...] = ()  # not owned, the fields a patch template names set on them
    conflicts: tuple[Group, ...] = ()  # what: (message,)
    sampled: int | None = None  # applies a server dry run was asked about; None: no server
    refusals: tuple[Refusal, ...] = ()
    api: crdchanges.Report | None = None  # the new CRD against the installed one; None: not compared

    @property
    def unchanged(self) -> int:
        return self.total - self.changed - self.failed

    @property
    def broken(self) -> bool:
        """Whether some parent would fail: a render failure, or an apply the server refused."""
        return bool(self.failed or self.refusals)


def summarize(
    kind: str, plans: Sequence[ParentPlan], refusals: Sequence[Refusal] = (), sampled: int | None = None
) -> Summary:
    """The plans of every parent of ``kind``, grouped; ``refusals`` of the ``sampled`` dry runs
    (``sampled`` None: no server was asked)."""
    plans = sorted(plans, key=lambda plan: plan.name)
    fields: dict[tuple[str, ...], list[str]] = defaultdict(list)
    failures: dict[tuple[str, ...], list[str]] = defaultdict(list)
    conflicts: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for plan in plans:
        if plan.failure is not None:
            failures[_failure_key(plan.failure)].append(plan.name)
        for key in sorted({(u.child.kind, f) for u in plan.updates for f in u.fields}):
            fields[key].append(plan.name)
        for conflict in plan.conflicts:
            conflicts[(conflict,)].append(plan.name)
    return Summary(
        kind=kind,
        total=len(plans),
        changed=sum(1 for plan in plans if plan.changed),
        failed=len([plan for plan in plans if plan.failure is not None]),
        fields=_groups(fields),
        failures=_groups(failures),
        creates=_children((plan.name, plan.creates) for plan in plans),
        prunes=_children((plan.name, plan.prunes) for plan in plans),
        adopts=_children((plan.name, plan.adopts) for plan in plans),
        releases=_children((plan.name, plan.releases) for plan in plans),
        kept=_children((plan.name, plan.kept) for plan in plans),
        patches=_children((plan.name, plan.patches) for plan in plans),
        conflicts=_groups(conflicts),
        sampled=sampled,
        refusals=tuple(refusals),
    )


def sample(plans: Sequence[ParentPlan], per_shape: int) -> list[tuple[str, Obj, bool]]:
    """``(parent, object to apply, whether it is created)`` for the first ``per_shape`` parents (by
    name) of each shape of change: the applies a server dry run is asked about."""
    taken: dict[tuple[str, ...], int] = defaultdict(int)
    chosen = []
    for plan in sorted(plans, key=lambda plan: plan.name):
        updated = {update.child: update.fields for update in plan.updates}
        for obj in plan.applies:
            child = ChildId.of(obj)
            shape = (child.group, child.kind, *updated.get(child, ("create",)))
            if taken[shape] < per_shape:
                taken[shape] += 1
                chosen.append((plan.name, obj, child not in updated))
    return chosen


def _failure_key(failure: Failure) -> tuple[str, ...]:
    return (failure.where, failure.field, failure.message)


def _groups(found: dict[tuple[str, ...], list[str]]) -> tuple[Group, ...]:
    """Groups with most parents first, then by what they share."""
    ordered = sorted(found.items(), key=lambda item: (-len(item[1]), item[0]))
    return tuple(Group(what, len(names), tuple(names[:EXAMPLES])) for what, names in ordered)


def _children(each: Iterable[tuple[str, tuple[ChildId, ...]]]) -> tuple[Group, ...]:
    """Children grouped by kind: how many, of how many parents, the first few by name."""
    children: dict[tuple[str, ...], list[str]] = defaultdict(list)
    parents: dict[tuple[str, ...], set[str]] = defaultdict(set)
    for parent, ids in each:
        for child in ids:
            key = (child.kind,)
            children[key].append(_named(child))
            parents[key].add(parent)
    ordered = sorted(children.items(), key=lambda item: (-len(item[1]), item[0]))
    return tuple(
        Group(what, len(parents[what]), tuple(sorted(names)[:EXAMPLES]), len(names))
        for what, names in ordered
    )


def _named(child: ChildId) -> str:
    return f"{child.namespace}/{child.name}" if child.namespace else child.name


# -- saying it -----------------------------------------------------------------------------------


def as_json(summary: Summary) -> Obj:
    """The summary as ``stencil plan --format json`` prints it (``docs/plan.md`` documents it)."""
    return {
        "schema": SCHEMA,
        "kind": summary.kind,
        "parents": {
            "total": summary.total,
            "changed": summary.changed,
            "unchanged": summary.unchanged,
            "failed": summary.failed,
        },
        "fields": [
            {"kind": g.what[0], "field": g.what[1], "parents": g.count, "examples": list(g.examples)}
            for g in summary.fields
        ],
        "failures": [
            {
                "where": g.what[0],
                "field": g.what[1],
                "message": g.what[2],
                "parents": g.count,
                "examples": list(g.examples),
            }
            for g in summary.failures
        ],
        "creates": [_children_json(g) for g in summary.creates],
        "prunes": [_children_json(g) for g in summary.prunes],
        "adopts": [_children_json(g) for g in summary.adopts],
        "releases": [_children_json(g) for g in summary.releases],
        "kept": [_children_json(g) for g in summary.kept],
        "patches": [_children_json(g) for g in summary.patches],
        "conflicts": [
            {"message": g.what[0], "parents": g.count, "examples": list(g.examples)}
            for g in summary.conflicts
        ],
        "dryRun": None
        if summary.sampled is None
        else {
            "sampled": summary.sampled,
            "refused": [
                {"parent": r.parent, "child": r.child, "message": r.message} for r in summary.refusals
            ],
        },
        "api": None if summary.api is None else crdchanges.as_json(summary.api),
    }


def _children_json(group: Group) -> Obj:
    return {
        "kind": group.what[0],
        "children": group.children,
        "parents": group.count,
        "examples": list(group.examples),
    }


def text(summary: Summary) -> str:
    """The summary as a reviewer reads it in a pull request, counts first (after the API's findings)."""
    lines = [*crdchanges.text(summary.api), ""] if summary.api is not None else []
    lines += [
        f"{summary.kind}: {summary.total} {_parents(summary.total)}: {summary.changed} would change, "
        f"{summary.unchanged} unchanged, {summary.failed} would fail to render"
    ]
    if summary.fields:
        lines += ["", "Fields that would change:"]
        lines += [f"  {g.what[0]} {g.what[1]}: {_count(g)}" for g in summary.fields]
    if summary.failures:
        lines += ["", "Would fail to render:"]
        for g in summary.failures:
            lines.append(f"  {': '.join(part for part in g.what if part)}: {_count(g)}")
    for title, groups in (
        ("would be created", summary.creates),
        ("would be adopted, no controller holding them (adopt)", summary.adopts),
        ("would be pruned", summary.prunes),
        ("would be let go, kept in the cluster (deletionPolicy Orphan)", summary.releases),
        ("are no longer rendered and kept (Retain, createOnly)", summary.kept),
        ("are not owned, the fields their patch names set on them (patch)", summary.patches),
    ):
        if groups:
            lines += ["", f"Children that {title}:"]
            lines += [
                f"  {g.what[0]}: {g.children} of {g.count} {_parents(g.count)} "
                f"({', '.join(g.examples)}{', ...' if g.children > len(g.examples) else ''})"
                for g in groups
            ]
    if summary.conflicts:
        lines += ["", "Names held by another object (not applied):"]
        lines += [f"  {g.what[0]}: {_count(g)}" for g in summary.conflicts]
    lines += ["", _dry_run(summary)]
    lines += [f"  {r.parent}: {r.child}: {r.message}" for r in summary.refusals]
    return "\n".join(lines) + "\n"


def _dry_run(summary: Summary) -> str:
    if summary.sampled is None:
        return "Server dry run: none (no cluster)."
    if not summary.sampled:
        return "Server dry run: nothing to apply."
    head = f"Server dry run of {summary.sampled} sampled {'apply' if summary.sampled == 1 else 'applies'}"
    if not summary.refusals:
        return f"{head}: none refused."
    return f"{head}: {len(summary.refusals)} refused:"


def _count(group: Group) -> str:
    more = ", ..." if group.count > len(group.examples) else ""
    return f"{group.count} {_parents(group.count)} ({', '.join(group.examples)}{more})"


def _parents(count: int) -> str:
    return "parent" if count == 1 else "parents"
