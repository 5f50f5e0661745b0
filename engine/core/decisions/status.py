"""The parent's status, derived from what happened and what the cluster shows.

``derive_status(kind, parent, observed, outcome, now)`` is the third pure
decision of a reconcile (after rendering and planning): given the kind's rules,
the parent, its observed children and the ``Outcome`` of rendering and applying,
it returns the parent's complete new ``status``.  It never reads the clock or
the cluster, so the same inputs give the same status, ``lastTransitionTime``
included; the controller writes only when ``status_changed`` says so.

Conditions form one ``ConditionSet`` with ``Ready`` at the root:

    Ready
    ├── TemplatesRendered   the kind loaded and every template rendered
    ├── ChildrenApplied     every child was applied; no name held by someone else
    ├── ChildrenReady       every rendered child exists and is ready (readyWhen, else kstatus)
    └── <custom>…           one per ``conditions:`` rule of kind.yaml (but ``gatesReady: false``)

A step that did not run is ``Unknown`` rather than a stale ``True``: when the
templates fail, nothing claims the children were applied or are ready.  A child
that waits for others (``after:``, ``engine.core.decisions.plans.ordering``) was not applied,
so ``ChildrenApplied`` is False with reason ``WaitingForDependencies`` and a
message naming what it waits for; it is not an error, and comes after a
conflict or a failed apply, which say more.  A field that another writer keeps
changing back (``engine.core.decisions.plans.contention``) makes ``ChildrenApplied`` False with
reason ``ContestedField``, naming the field and the other writer.
``Ready`` carries the reason and message of the first dependent that is False
(else Unknown), so ``kubectl get`` shows why a parent is not ready.  A custom condition with
``gatesReady: false`` only informs: it is kept beside ``Ready``, which does not wait for it.

Beside the root, ``Reconciling`` or ``Stalled`` says the same verdict to kstatus and
Argo CD (``engine.core.decisions.progress``); ``STALLS`` names, once, the reasons
that only a change from outside can clear.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import jsonpatch

from engine.core.decisions import conditions, progress, readiness, referencing, rules
from engine.core.decisions.plans import contention, ordering, planning, refusing
from engine.core.model.children import confidential
from engine.core.model.errors import StencilError
from engine.core.model.identity import ChildId

if TYPE_CHECKING:
    from engine.core.model.kinds import ConditionRule, Kind

log = logging.getLogger(__name__)

READY = "Ready"
TEMPLATES_RENDERED = "TemplatesRendered"
CHILDREN_APPLIED = "ChildrenApplied"
WAITING_FOR_DEPENDENCIES = "WaitingForDependencies"
CONTESTED_FIELD = "ContestedField"
CHILDREN_READY = "ChildrenReady"
CHILD_FAILED = "ChildFailed"  # a child its controller gave up on (kstatus Failed)
KIND_REVISION = "kindRevision"  # the revision of the kind the children come from, and since when
BUILTIN_CONDITIONS = (READY, TEMPLATES_RENDERED, CHILDREN_APPLIED, CHILDREN_READY, *progress.TYPES)

# What only a change from outside the engine can clear: the parent is Stalled, not Reconciling.
STALLS: progress.Stalls = {
    TEMPLATES_RENDERED: None,  # any reason: the kind does not load, or a template does not render
    CHILDREN_APPLIED: frozenset({"ChildConflict", CONTESTED_FIELD, refusing.CHILD_REFUSED}),
    CHILDREN_READY: frozenset({CHILD_FAILED}),
}


@dataclass(frozen=True)
class Outcome:
    """What happened in this reconcile before status: the inputs status reports on."""

    render_error: StencilError | None = None
    apply_error: StencilError | None = None
    conflicts: tuple[planning.Conflict, ...] = ()  # children whose names others hold
    desired: tuple[ChildId, ...] = ()  # every rendered child
    kind_error: StencilError | None = None  # the kind folder itself is broken
    waiting: tuple[ordering.Waiting, ...] = ()  # templates whose children wait for others
    origins: tuple[ordering.Origin, ...] = ()  # which template made each rendered child: children.<id>
    contested: tuple[contention.Contest, ...] = ()  # fields another writer keeps changing back
    references: Mapping[str, Any] | None = None  # what the kind references reads: references.<id>
    missing: tuple[referencing.Missing, ...] = ()  # required references not found: nothing rendered
    revision: int | None = None  # the kind's revision the children were rendered from, if it has some


def derive_status(
    kind: Kind,
    parent: Mapping[str, Any],
    observed: Sequence[Mapping[str, Any]],
    outcome: Outcome,
    now: str,
    related: Sequence[Mapping[str, Any]] = (),
) -> dict[str, Any]:
    """The parent's complete new ``status``."""
    old = parent.get("status")
    old = old if isinstance(old, Mapping) else {}
    generation = (parent.get("metadata") or {}).get("generation")
    generation = generation if isinstance(generation, int) else None
    usable = _usable(kind.conditions)

    gating = tuple(rule.type for rule in usable if rule.gates_ready)
    informing = (
        *(rule.type for rule in usable if not rule.gates_ready),
        *(t.ready_condition for t in kind.templates if not t.gates_ready),
    )
    condition_set = conditions.ConditionSet(
        READY,
        (TEMPLATES_RENDERED, CHILDREN_APPLIED, CHILDREN_READY, *gating),
        beside=(*progress.TYPES, *informing),
    )
    manager = condition_set.manage(conditions.of(parent), generation=generation, now=now)
    read = rules.Read(observed, related, now, outcome.origins, outcome.references)
    context = rules.scope(kind, parent, read)
    secrets = confidential.secret_values(outcome.references, observed)

    # 1. Did the kind load and the templates render?
    _mark_rendered(manager, outcome)
    # 2. Were the children applied?  3. Are they ready?
    _mark_children(manager, kind, outcome, observed, now)
    # 4. The kind's own conditions; a broken kind's rules are not to be trusted.
    for rule in usable:
        if outcome.kind_error is None:
            rules.mark_custom(manager, rule, context, secrets)
        else:
            manager.mark_unknown(rule.type, "InvalidKind", "not evaluated: the kind is invalid")
    # 5. Reconciling or Stalled: the verdict as kstatus reads it.
    progress.mark(manager, READY, STALLS)

    status = {key: value for key, value in old.items() if key not in ("conditions", "observedGeneration")}
    if outcome.kind_error is None:
        rules.set_fields(status, kind, context, secrets)
    if generation is not None:
        status["observedGeneration"] = generation
    status["conditions"] = manager.to_list()
    _record_revision(status, outcome.revision, now)
    return status


def _record_revision(status: dict[str, Any], revision: int | None, now: str) -> None:
    """``status.kindRevision``: the revision the children come from, and since when it is."""
    record = status.get(KIND_REVISION)
    if revision is not None and not (isinstance(record, Mapping) and record.get("number") == revision):
        status[KIND_REVISION] = {"number": revision, "since": now}


def only_progress(old: Mapping[str, Any] | None, new: Mapping[str, Any]) -> bool:
    """Whether ``new`` only reports progress over ``old``: the same verdict for the same generation.

    The verdict is ``Ready``'s status and reason, and whether the parent is
    ``Stalled``; sub-conditions, messages and fields may have moved.  Such a change
    can wait a moment and be merged with the next one (a Deployment reports several
    steps on its way to Available),
    where a new verdict, a new generation or a first status is written at once.
    """
    if not old or old.get("observedGeneration") != new.get("observedGeneration"):
        return False

    return _verdict(old) is not None and _verdict(old) == _verdict(new)


def _verdict(status: Mapping[str, Any]) -> tuple[Any, Any, bool] | None:
    """``Ready``'s status and reason and whether ``Stalled`` holds, if the status has a Ready condition."""
    found = next((c for c in status.get("conditions") or () if c.get("type") == READY), None)
    return None if found is None else (found.get("status"), found.get("reason"), progress.stalled(status))


def can_wait(old: Mapping[str, Any] | None, new: Mapping[str, Any]) -> bool:
    """Whether ``new`` only says how far things got, so writing it may wait for more urgent work.

    That is progress (``only_progress``), or a parent's first verdict when it says "not
    Ready yet" and nothing is wrong: the templates rendered, the children were applied (or
    wait for their dependencies) and none has failed.  Ready, a failure and any change of
    verdict are news, written at once.
    """
    if only_progress(old, new):
        return True
    if old and _verdict(old) is not None:
        return False
    found = {c.get("type"): c for c in new.get("conditions") or ()}
    ready, applied = found.get(READY) or {}, found.get(CHILDREN_APPLIED) or {}
    return (
        ready.get("status") in (conditions.FALSE, conditions.UNKNOWN)
        and (found.get(TEMPLATES_RENDERED) or {}).get("status") == conditions.TRUE
        and (applied.get("status") == conditions.TRUE or applied.get("reason") == WAITING_FOR_DEPENDENCIES)
        and not progress.stalled(new)
    )


def status_changed(old: Mapping[str, Any] | None, new: Mapping[str, Any]) -> bool:
    """Whether writing ``new`` over ``old`` would change anything."""
    return dict(old or {}) != dict(new)


def status_patch(parent: Mapping[str, Any], new: Mapping[str, Any]) -> list[dict[str, Any]] | None:
    """The JSON patch (RFC 6902) that turns the parent's status into ``new``; None if equal.

    A JSON patch, not a merge patch or an apply, because it says exactly what changes
    against what was read: a key the derivation dropped is removed (a merge patch
    cannot remove what it does not name), and fields other writers put there are
    kept, since ``new`` was derived from the status that holds them.

    The first operation sets the resourceVersion the status was read at: the server
    then refuses the write with 409 Conflict if the parent changed since (optimistic
    concurrency, as for an update), instead of undoing someone else's change.  (A
    ``test`` operation would refuse it too, but with a bare 422 that cannot be told
    from a malformed patch.)
    """
    old = parent.get("status")
    if status_changed(old if isinstance(old, Mapping) else None, new):
        before = {"status": dict(old)} if isinstance(old, Mapping) else {}
        ops: list[dict[str, Any]] = jsonpatch.make_patch(before, {"status": dict(new)}).patch
        version = (parent.get("metadata") or {}).get("resourceVersion")
        return [{"op": "replace", "path": "/metadata/resourceVersion", "value": version}, *ops]
    return None


def _usable(declared: Sequence[ConditionRule]) -> list[ConditionRule]:
    """The custom rules that can be conditions; the kind loader refuses the others, this
    only keeps a kind built some other way from breaking status for good."""
    usable: list[ConditionRule] = []
    for rule in declared:
        if rule.type in BUILTIN_CONDITIONS or not conditions.is_valid_type(rule.type):
            log.warning("condition rule %s ignored: reserved or invalid condition type", rule.type)
        elif any(rule.type == kept.type for kept in usable):
            log.warning("condition rule %s ignored: declared twice", rule.type)
        else:
            usable.append(rule)
    return usable


def _mark_rendered(manager: conditions.ConditionManager, outcome: Outcome) -> None:
    error = outcome.kind_error or outcome.render_error
    if error is None and outcome.missing:
        message = f"not rendered: {_joined(outcome.missing)}"
        manager.mark_unknown(TEMPLATES_RENDERED, referencing.REFERENCE_NOT_FOUND, message)
        return
    if error is None:
        count = len(outcome.desired)
        manager.mark_true(TEMPLATES_RENDERED, "Rendered", f"{_children(count)} rendered")
        return
    reason = "InvalidKind" if outcome.kind_error is not None else conditions.reason_of(error, "RenderFailed")
    manager.mark_false(TEMPLATES_RENDERED, reason, conditions.clip(str(error)))


def _mark_children(
    manager: conditions.ConditionManager,
    kind: Kind,
    outcome: Outcome,
    observed: Sequence[Mapping[str, Any]],
    now: str,
) -> None:
    """``ChildrenApplied`` and ``ChildrenReady``: Unknown when nothing was rendered."""
    if outcome.missing:  # nothing was rendered: what the kind references is not there yet
        _mark_waiting_for_references(manager, outcome.missing)
    elif outcome.kind_error is None and outcome.render_error is None:
        _mark_applied(manager, outcome)
        _mark_children_ready(manager, kind, outcome, observed, now)
    else:
        manager.mark_unknown(
            CHILDREN_APPLIED, "NotRendered", "nothing was applied: the templates did not render"
        )
        manager.mark_unknown(
            CHILDREN_READY, "NotRendered", "the children are unknown: the templates did not render"
        )
    if outcome.missing or outcome.kind_error is not None or outcome.render_error is not None:
        for template in kind.templates:
            if not template.gates_ready:
                manager.mark_unknown(
                    template.ready_condition, "NotRendered", "not known: nothing was rendered"
                )


def _mark_waiting_for_references(
    manager: conditions.ConditionManager, missing: Sequence[referencing.Missing]
) -> None:
    """Nothing applied, and nothing known of the children, while a required reference is missing."""
    manager.mark_false(CHILDREN_APPLIED, referencing.REFERENCE_NOT_FOUND, _joined(missing))
    manager.mark_unknown(CHILDREN_READY, referencing.REFERENCE_NOT_FOUND, f"not known: {_joined(missing)}")


def _mark_applied(manager: conditions.ConditionManager, outcome: Outcome) -> None:
    problems = [str(conflict) for conflict in outcome.conflicts]
    if outcome.apply_error is not None:
        problems.append(str(outcome.apply_error))
    if outcome.conflicts:
        manager.mark_false(CHILDREN_APPLIED, "ChildConflict", _joined(problems))
    elif outcome.apply_error is not None:
        manager.mark_false(
            CHILDREN_APPLIED,
            conditions.reason_of(outcome.apply_error, "ApplyFailed"),
            conditions.clip(problems[0]),
        )
    elif outcome.contested:
        manager.mark_false(CHILDREN_APPLIED, CONTESTED_FIELD, _joined(outcome.contested))
    elif outcome.waiting:
        manager.mark_false(CHILDREN_APPLIED, WAITING_FOR_DEPENDENCIES, _joined(outcome.waiting))
    else:
        manager.mark_true(CHILDREN_APPLIED, "Applied", f"{_children(len(outcome.desired))} applied")


def _joined(values: Iterable[object]) -> str:
    """Values (conflicts, waits, contests) as one message, each worded by its own ``str``."""
    return conditions.clip("; ".join(map(str, values)))


def _mark_children_ready(
    manager: conditions.ConditionManager,
    kind: Kind,
    outcome: Outcome,
    observed: Sequence[Mapping[str, Any]],
    now: str,
) -> None:
    """Every rendered child exists and is ready: by its template's ``readyWhen``, else kstatus."""
    # By namespace too: two children of one name in two namespaces are two children.
    by_identity = {ChildId.of(o): o for o in observed}
    made_by = {origin.child: origin.template for origin in outcome.origins}
    by_template: dict[str, list[ChildId]] = {}
    for child in outcome.desired:
        by_template.setdefault(made_by.get(child, ""), []).append(child)
    templates = {template.id: template for template in kind.templates}
    blocking = []
    for template_id, children in by_template.items():
        template = templates.get(template_id)
        unready = readiness.unready(template, template_id, children, by_identity, now)
        if template is None or template.gates_ready:
            blocking += unready
        else:  # it only informs, in a condition of its own
            _mark_readiness(manager, template.ready_condition, unready, len(children))
    for template in kind.templates:
        if not template.gates_ready and template.id not in by_template:  # rendered none now
            _mark_readiness(manager, template.ready_condition, (), 0)
    _mark_readiness(manager, CHILDREN_READY, blocking, len(outcome.desired))


def _mark_readiness(
    manager: conditions.ConditionManager, type_: str, unready: Sequence[readiness.Unready], made: int
) -> None:
    """``ChildrenReady``, or the condition a template whose readiness only informs says it in:
    True, or why not (a child failed, or is not ready yet)."""
    if not unready:
        manager.mark_true(type_, "AllReady", f"{_children(made)} ready")
    elif any(u.failed for u in unready):
        manager.mark_false(type_, CHILD_FAILED, _joined(unready))
    else:
        manager.mark_false(type_, "ChildrenNotReady", _joined(unready))


def _children(count: int) -> str:
    return f"{count} child" if count == 1 else f"{count} children"
