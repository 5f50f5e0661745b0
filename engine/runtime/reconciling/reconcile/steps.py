"""What the steps of a reconcile hand each other: what was seen, and what was planned.

``KindController.reconcile`` (``engine.runtime.reconciling.reconcile.controller``) reads top to bottom,
one call a step, each answering with a value the next one reads: ``Seen`` (the parent's
children and related objects, from the caches), ``Planned`` (the rendered children, the gate
of their ordering, the plan), then ``applying.Applied``.  ``Planned.outcome`` turns the last
two into what the status says.  Every step that ends the reconcile answers with an ``Exit``:
the status it says, and what comes after it is written, so that the status is written from one
place whatever the outcome (Flux's deferred status patch).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from engine.core.decisions import referencing, status
from engine.core.decisions.plans import ordering, planning
from engine.core.model import errors, kinds
from engine.core.model.identity import ChildId
from engine.core.model.objects import Obj
from engine.core.templating import rendering
from engine.runtime.cluster.seam import Api
from engine.runtime.reconciling.moving import rollouts
from engine.runtime.reconciling.reconcile import applying
from engine.runtime.reconciling.requeuing import Result


@dataclass(frozen=True)
class Seen:
    """A parent's children and related objects as the caches hold them, within its reach."""

    reach: planning.Reach  # where its children and related objects may lie
    observed: list[Obj]  # the children in reach, whoever controls them
    mine: list[Obj]  # of those, the ones it controls: what templates and the status may read
    related: list[Obj]
    complete: frozenset[tuple[str, str]]  # the child kinds whose caches were complete at the read
    referenced: referencing.Resolved = referencing.NOTHING  # what the kind's references read
    revision: rollouts.Choice = rollouts.FROM_FOLDER  # the revision of the kind it is rendered from


@dataclass(frozen=True)
class Planned:
    """The rendered children, those the ordering lets through now, and the plan for them."""

    rendered: list[tuple[kinds.Template, Obj]]
    gate: ordering.Gate
    plan: planning.Plan

    @property
    def desired(self) -> list[Obj]:
        return [child for _, child in self.rendered]

    def outcome(self, applied: applying.Applied) -> status.Outcome:
        """What the status says of this plan once applied: the server's refusal, or the conflicts."""
        return status.Outcome(
            apply_error=applied.error,
            conflicts=() if applied.error else tuple(applied.conflicts.values()),
            desired=tuple(ChildId.of(child) for child in self.desired),
            waiting=self.gate.waiting,
            origins=ordering.origins(self.rendered),
            contested=applied.contests,
        )


@dataclass(frozen=True)
class Exit:
    """How a reconcile ends: the outcome the parent's status says (None: nothing to say, the
    reconcile looks again first), with the parent as it is now (a finalizer added, say) and what
    was seen; then the error to raise, or what the queue does next unless the status write says
    when (a stale read, a report that waits)."""

    parent: Obj
    seen: Seen
    outcome: status.Outcome | None = None
    error: Exception | None = None
    result: Result = field(default_factory=Result)
    may_wait: bool = False  # a status that only says how far things got may wait (``reporting``)


def refuse_unserved(located: Sequence[rendering.Located], kube: Api) -> None:
    """A child of a kind the server does not serve is said at the line of its apiVersion, rather
    than waited for as a cache that never fills or refused at apply time."""
    for child in located:
        try:
            kube.resource(child.child["apiVersion"], child.child["kind"])
        except errors.NotFound:
            raise rendering.not_served(child) from None


def placeholder(broken: kinds.BrokenKind | None) -> kinds.Kind:
    """A kind with no templates or rules, standing in for a broken one when deriving status."""
    assert broken is not None and broken.api_version and broken.kind
    return kinds.Kind(broken.name, broken.directory, broken.api_version, broken.kind, templates=())


def releases(planned: Planned, seen: Seen, now: str) -> bool:
    """Whether the ordering, decided again on what is seen now, lets a child through that it held back."""
    return len(ordering.gate(planned.rendered, seen.mine, now).ready) > len(planned.gate.ready)
