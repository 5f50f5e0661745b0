"""The generic reconcile loop: one controller per kind.

``KindController.reconcile`` is the whole of Stencil's behaviour and reads top to bottom, one call a
step: load the parent from the cache, observe its children from the cache, render, plan, apply, prune,
patch (``patching``), and write the status once (a decorator's parents, ``decorating``, get none).
Each step answers with a value (``Seen``, ``Planned``, ``applying.Applied``, ``reporting.Report``)
that the next one reads. The decisions (``door.render``, ``planning.plan``, ``status.derive_status``)
are pure; this module only moves data between them and the API server, and answers what the queue
does next (a ``requeuing.Result``). The queue key is only the parent's namespace and name (an
``objects.Key``): every reconcile re-reads everything it needs, so a missed or merged event costs
nothing.

A ``KindController`` is the reconciler of its kind and knows nothing of threads and queues: the
queue, the workers and the retries are ``worker``'s, and the controller sees the queue only as
``requeuing.Wakes`` (a parent's key queued again, and whether other parents wait).

Beside it, in this package: the writes to children (``applying``), the status and its pacing
(``reporting``), the finalizer and the deletions (``deletion``). A controller knows of the engine around
it only what ``host.Host`` says (the engine itself, kind loading and the workers' lifecycle, is
``engine.runtime.serving.manager``); the child caches and the routing of their events are ``children``.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable

from engine.core import door
from engine.core.decisions import conditions, status
from engine.core.decisions.plans import contention, lifecycles, ordering, planning, refusing
from engine.core.model import errors, kinds
from engine.core.model.language import seedkeys
from engine.core.model.objects import Key, Obj, key_of, uid_of
from engine.core.model.sources import dependencies
from engine.runtime.cluster import nesting
from engine.runtime.cluster.informers import Across
from engine.runtime.cluster.kube import Resource
from engine.runtime.cluster.seam import Api
from engine.runtime.cluster.watching import DELETED
from engine.runtime.reconciling import events
from engine.runtime.reconciling.host import Host
from engine.runtime.reconciling.moving import handover, rollouts
from engine.runtime.reconciling.reconcile import applying, decorating, patching, reporting, steps
from engine.runtime.reconciling.reconcile.deletion import Deletion
from engine.runtime.reconciling.reconcile.steps import Exit, Planned, Seen
from engine.runtime.reconciling.requeuing import Result, Wakes

log = logging.getLogger("stencil.controller")

UID_INDEX = "uid"
CACHE_WAIT = 1.0  # how soon a reconcile looks again when a child kind's cache is not filled yet
CONFLICT_RECHECK = 10.0  # how often a parent in ChildConflict tries its name again
MAX_ECHOES = 8  # renders in a row after a parent's own writes (a state machine's steps)


class KindController:
    """Reconciles the objects of one kind: the reconciler a ``worker.Worker`` runs."""

    def __init__(
        self,
        host: Host,
        name: str,
        kind: kinds.Kind | None,
        broken: kinds.BrokenKind | None,
        resource: Resource,
        wakes: Wakes,
    ) -> None:
        self.host = host
        self.name = name
        self.kind = kind
        self.broken = broken
        self.resource = resource
        self.wakes = wakes  # the worker's queue: its parents' keys queued (again)
        options = host.options
        # A parent came or went: the rollout's counts change (a no-op until the rollout is made,
        # since the parents' informer may already call back as it is ensured).
        self._counted_anew: Callable[[], None] = lambda: None
        self.watched = decorating.watched(kind, host)  # a decorator's: where and what it selects
        self.parents: Across = host.informers.ensure_across(
            resource,
            self.watched[0],
            label_selector=self.watched[1],
            on_event=self._on_parent_event,
            own_writes=False,  # a parent's own status write would only wake it again
            resync_period=options.resync,
        )
        self.parents.add_index(UID_INDEX, lambda obj: [uid_of(obj)])
        self._clock = options.clock
        self.reports = reporting.StatusWriter(
            host, self.name, resource, self.parents, self.wakes, self._clock.monotonic
        )
        self.deletion = Deletion(host, resource, self.parents)
        self._contention = contention.Contention()  # fields another writer keeps changing back
        self._refusals = refusing.Refusals()  # children the server refused as they are rendered now
        self._echoes: dict[str, int] = {}  # by parent uid: renders in a row that followed its own writes
        self.rollout = rollouts.Rollout(  # its revisions
            host, self.name, self.parents, self.wakes, clock=self._clock.monotonic, shard=host.options.shard
        )
        self.handover = handover.Handover(
            host, self.name, resource, self.parents, lambda: self.writer, clock=self._clock.monotonic
        )
        self._counted_anew = self.rollout.counted_anew
        self.decorations = decorating.Decorations(host)

    # -- wiring -------------------------------------------------------------

    def _on_parent_event(self, type_: str, obj: Obj, old: Obj | None) -> None:
        if type_ == DELETED or old is None:
            self._counted_anew()
        if type_ == DELETED:
            uid = uid_of(obj)
            self.host.recorder.forget(uid)
            self.reports.forget(uid)
            self._contention.forget(uid)
            self._refusals.forget(uid)
            self._echoes.pop(uid, None)
            self.handover.forget(uid)
            self.wakes.forget(key_of(obj))  # its failures and hold, kept for nothing once it is gone
            self.host.children.wait_for_names(self.wakes, key_of(obj), ())
            self.host.children.referenced.forget(self.wakes, key_of(obj))
            if self.kind is not None and self.kind.decorates is not None:  # its children are pruned
                self.wakes.add(self.decorations.left(obj))
            return
        self.wakes.add(key_of(obj))

    def replace(self, kind: kinds.Kind | None, broken: kinds.BrokenKind | None) -> None:
        """A new version of the kind folder: reconcile every parent with it."""
        self.kind, self.broken = kind, broken
        for namespace, name, _ in self.parents.versions():  # keys only: decoding every parent at once
            self.wakes.add(Key(namespace, name))  # takes gigabytes when they are large

    # -- the reconcile ----------------------------------------------------------

    def reconcile(self, key: Key) -> Result:
        """Bring one parent's children and status in line with its spec (``_reconcile``), within
        the engine's bound on what is decoded at once and drawing ``random_string`` with the
        engine's key; a kind with a period (``reconcileEvery``) asks for the next at the parent's
        phase.

        Returns what the queue should do next, or raises: a terminal ``StencilError`` after the
        status says what is wrong, any other error to be retried (``worker`` says how)."""
        admitted = self.host.memory.admit(self.parents.size(key.namespace or None, key.name))
        with admitted, seedkeys.keyed(self.host.options.seed_key()):
            result = self._reconcile(key)
        every = self.kind.every if self.kind is not None else None
        if every and result.requeue_after is None and not result.when_idle:  # again at its phase
            wake = lifecycles.next_wake(key, every, self._clock.monotonic())
            return Result(requeue_after=wake, periodic=True)
        return result

    def _reconcile(self, key: Key) -> Result:
        """The steps of one reconcile, top to bottom."""
        # 1. Load the parent from the cache; a deleted parent's children go with it (owner references).
        parent = self.parents.get(key.namespace or None, key.name)
        if self.kind is not None and self.kind.decorates and not decorating.selected(self.kind, parent):
            return self.decorations.undecorate(key, parent, self._applier, self._patcher())
        if parent is None or not self.handover.ours(parent):  # sharded: another replica's, or handed over now
            return Result()
        self.host.options.tracer.annotate(uid=uid_of(parent))
        if (arriving := self.handover.arriving(parent, self.kind)) is not None:  # its children not all cached
            return arriving
        if parent["metadata"].get("deletionTimestamp"):  # its children beyond owner references go first
            applier, reach = self._applier(parent), self._reach(parent)
            return self.deletion.clean_up(parent, self.kind, applier, reach, self._patcher())
        # 2. Observe its children and related objects from the cache, within its reach.
        seen = self._observe(parent)
        # 3.-6. Render, plan, apply and prune; 7. the status, written once, whatever the outcome.
        return self._finish(self._converge(key, parent, seen))

    def _converge(self, key: Key, parent: Obj, seen: Seen) -> Exit:
        """Steps 3 to 6, each of which may end the reconcile; none writes the status."""
        if self.kind is None:  # a broken kind folder: say so on every parent, change nothing else
            assert self.broken is not None
            return Exit(parent, seen, status.Outcome(kind_error=self.broken.error), error=self.broken.error)
        # 3. Render the desired children from the revision of the kind the parent is on (pure; a
        #    template error is terminal until the input changes); a parent the rollout moves records
        #    its move first; none while an object the kind references is missing: its creation wakes it.
        seen = dataclasses.replace(seen, revision=self.rollout.choose(parent))
        if seen.revision.move and seen.revision.number is not None:  # the move is recorded first
            moved = self.reports.record_move(parent, seen.revision.number, self._now())
            return Exit(parent, seen, result=moved)
        rendered = self._render(seen.revision.kind or self.kind, parent, seen)
        if isinstance(rendered, Exit):
            return rendered
        desired = rendered.children
        if not self._caches_complete(key, desired):  # a missing listing would look like missing children
            return Exit(parent, seen, result=Result(requeue_after=CACHE_WAIT))
        seen = self._observe_again(parent, seen, desired)
        parent = self.deletion.hold(parent, desired, self.kind)  # a finalizer: children beyond its namespace
        # 4. Plan what to apply and prune against the cache, the children the ordering lets through.
        planned = self._plan(parent, rendered.pairs, seen)
        # 5. Apply every child that is missing or drifted; a name another object holds is a conflict.
        applier = self._applier(parent)
        applied = self._apply(key, parent, planned, applier)
        if applied.error is not None:
            return Exit(parent, seen, planned.outcome(applied), error=applied.error)
        # 6. Prune only after every apply succeeded, and only children this parent controls.
        self._prune(planned, applied, applier)
        # 6'. Patch the fields it names of objects it does not own, as the parent's own field manager.
        try:
            parent = self._patcher().converge(parent, rendered.patches)
        except errors.StencilError as exc:  # a missing target, a field another writer holds: retried
            self.host.recorder.emit(parent, events.WARNING, exc.reason, str(exc))
            return Exit(parent, seen, status.Outcome(render_error=exc), error=exc)
        # 7. What the status says of it all, from what is observed now.
        return self._report(key, parent, seen, planned, applied)

    def _finish(self, end: Exit) -> Result:
        """Step 7's write, the one place the parent's status is written: once, if it changed (a
        status that only says how far things got may wait), then the parent deleted if its
        ``deleteWhen`` holds; then the error raised, or what the queue does next."""
        again = None
        if end.outcome is not None and (self.kind is None or self.kind.decorates is None):  # never theirs
            again = self._write_status_then_delete_when_done(
                end.parent, end.seen, end.outcome, progress_may_wait=end.may_wait
            )
        if end.error is not None:
            raise end.error
        return again if again is not None else end.result

    # -- its steps ----------------------------------------------------------------

    def _observe(self, parent: Obj) -> Seen:
        """Step 2: the children this parent controls, and related objects, as the caches hold them:
        only within its reach (its namespace, those its placement names), whatever labels claim."""
        uid, reach = uid_of(parent), self._reach(parent)
        complete = self.host.children.synced_kinds()
        observed = planning.within(self.host.children.of(uid), reach)
        observes = self.kind.observe if self.kind else ()
        related = planning.within(self.host.children.related_of(uid, observes), reach)
        referenced = self.host.children.referenced.read(self.kind, parent, self.wakes, key_of(parent))
        return Seen(reach, observed, planning.owned(observed, uid, reach), related, complete, referenced)

    def _caches_complete(self, key: Key, desired: list[Obj]) -> bool:
        """Whether every desired child's kind is cached (a listing under way would look like missing
        children).  Its sync wakes nobody, so the reconcile looks again after ``CACHE_WAIT``."""
        if self.host.children.watch(desired):
            return True
        log.info("waiting for the caches of its child kinds", extra={"kind": self.name, "key": str(key)})
        return False

    def _observe_again(self, parent: Obj, seen: Seen, desired: list[Obj]) -> Seen:
        """The children read again once their caches are complete, ``desired`` ones included."""
        uid = uid_of(parent)
        read = self.host.children.of(uid, also=desired, read=(seen.observed, seen.complete))
        observed = planning.within(read, seen.reach)
        return dataclasses.replace(seen, observed=observed, mine=planning.owned(observed, uid, seen.reach))

    def _render(self, kind: kinds.Kind, parent: Obj, seen: Seen) -> door.Rendered | Exit:
        """Step 3: each desired child with its template; a refusal ends the reconcile, said on the
        status and raised.  While a required reference is missing, that is said instead."""
        try:
            if refused := nesting.refusal(parent):
                raise refused
            with self.host.options.tracer.span("render") as span:
                rendered = door.render(
                    kind, parent, seen.mine, seen.referenced, is_namespaced=self.host.kube.is_namespaced
                )
                span.set(children=len(rendered.located))
            if rendered.waiting:  # its creation wakes the parent
                return Exit(parent, seen, rendered.outcome())
            steps.refuse_unserved(rendered.located, self.host.kube)
        except errors.StencilError as exc:
            self.host.recorder.emit(parent, events.WARNING, exc.reason, str(exc))
            return Exit(parent, seen, status.Outcome(render_error=exc), error=exc)
        return rendered

    def _plan(self, parent: Obj, rendered: list[tuple[kinds.Template, Obj]], seen: Seen) -> Planned:
        """Step 4: what differs from the cache, what to prune, what belongs to someone else.  A child
        whose ``after:`` templates are not all healthy yet is not planned (its dependency's events
        wake the parent)."""
        with self.host.options.tracer.span("plan") as span:
            gate = ordering.gate(rendered, seen.mine, self._now())
            plan = planning.plan(gate.ready, seen.observed, uid_of(parent), seen.reach)
            span.set(applies=len(plan.applies), prunes=len(plan.prunes), unchanged=len(plan.unchanged))
        for _ in plan.unchanged:
            self.host.counts.skipped(self.name)
        return Planned(rendered, gate, plan)

    def _apply(self, key: Key, parent: Obj, planned: Planned, applier: applying.Applier) -> applying.Applied:
        """Step 5: every child missing or drifted applied (server-side apply, one field manager); a
        name held by another object is a conflict, and the parent waits for that name.  A field
        that another writer keeps changing back is restored ever more slowly (contention).  A
        refusal of the server (``Applied.error``) ends the reconcile, said on the status and raised
        (one for good is not sent again)."""
        applied = applier.apply(planned.plan)
        applier.announce(applied)
        if applied.error is not None:
            if not isinstance(applied.error, errors.Refused):  # whose event the applier sends
                self.host.recorder.emit(parent, events.WARNING, "ApplyFailed", str(applied.error))
            return applied
        self.host.children.wait_for_names(self.wakes, key, applied.conflicts)
        return applied

    def _prune(self, planned: Planned, applied: applying.Applied, applier: applying.Applier) -> None:
        """Step 6: delete, or let go, what is no longer rendered, unless some name is in conflict."""
        if not applied.conflicts:
            applier.prune_all(planned.plan)

    def _report(self, key: Key, parent: Obj, seen: Seen, planned: Planned, applied: applying.Applied) -> Exit:
        """Step 7: what the status says of the plan applied, read from what is observed now, and
        what the queue does next; or, before any status, another look at once."""
        plan, uid = planned.plan, uid_of(parent)
        if not plan.empty:  # our writes are in the cache: read them
            mine = planning.owned(self.host.children.of(uid, also=planned.desired), uid, seen.reach)
            seen = dataclasses.replace(seen, mine=mine)
        # A dependency this reconcile created may already be Current (a Namespace, a ConfigMap).
        # Its watch event carries the version cached from the create's answer and wakes nobody,
        # and such an object sends no later one: decide the gate again now, not at the resync.
        if planned.gate.waiting and plan.applies and steps.releases(planned, seen, self._now()):
            return Exit(parent, seen, result=Result(requeue_after=0.0))
        if self._echo(uid, seen.revision.kind or self.kind, applied):  # templates read what it wrote
            return Exit(parent, seen, result=Result(requeue_after=0.0))
        for conflict in applied.conflicts.values():
            self.host.recorder.emit(parent, events.WARNING, "ChildConflict", str(conflict))
        self._log(key, planned, applied)
        if applied.contests:  # restore the contested fields when their back-off ends
            after = Result(requeue_after=min(c.retry_in for c in applied.contests))
        else:  # a name held outside Stencil's caches (its deletion wakes nobody), a recreation's turn
            after = Result(requeue_after=CONFLICT_RECHECK if applied.conflicts else applied.again_in)
        return Exit(parent, seen, planned.outcome(applied), result=after, may_wait=True)

    def _echo(self, uid: str, kind: kinds.Kind | None, applied: applying.Applied) -> bool:
        """Whether to render again at once because this reconcile wrote children that its templates
        read (``children``, ``child()``): the watch events of its own writes wake nobody.  A render
        that writes nothing is the fixed point; a kind whose every render writes (it renders a field
        its own write changes into the same child) stops after ``MAX_ECHOES`` in a row."""
        sources = kind.sources if kind is not None else ()  # a partial a template includes reads too
        if not applied.wrote or not any(dependencies.reads_observed(s.text) for s in sources):
            self._echoes.pop(uid, None)
            return False
        self._echoes[uid] = echoes = self._echoes.get(uid, 0) + 1
        if echoes == MAX_ECHOES + 1:
            log.warning("renders anew after each of its own writes: not again", extra={"kind": self.name})
        return echoes <= MAX_ECHOES

    def _write_status_then_delete_when_done(
        self, parent: Obj, seen: Seen, outcome: status.Outcome, *, progress_may_wait: bool = False
    ) -> Result | None:
        """Write the parent's status (``reporting``); once the parent says it, delete the parent
        if the kind's ``deleteWhen`` rule holds (``deletion``).  When to reconcile again, or None."""
        assert self.kind is not None or self.broken is not None
        kind = seen.revision.kind or self.kind or steps.placeholder(self.broken)
        now = self._now()
        outcome = dataclasses.replace(
            outcome, references=seen.referenced.values, revision=seen.revision.number
        )
        report = self.reports.write(
            kind, parent, seen.mine, seen.related, outcome, now, may_wait=progress_may_wait
        )
        if report.stands:
            self.deletion.when_done(kind, parent, report.status, seen.mine, seen.related, now, outcome)
        return report.again

    def _log(self, key: Key, planned: Planned, applied: applying.Applied) -> None:
        plan, conflicts = planned.plan, applied.conflicts
        context = {
            "kind": self.name,
            "key": str(key),
            "applied": len(plan.applies) - (len(conflicts) - len(plan.conflicts)),
            "unchanged": len(plan.unchanged),
            "pruned": 0 if conflicts else len(plan.prunes),
            "conflicts": len(conflicts),
            "waiting": sum(len(w.children) for w in planned.gate.waiting),
        }
        level = logging.INFO if plan.applies or plan.prunes or conflicts else logging.DEBUG
        log.log(level, "reconciled", extra=context)

    def _now(self) -> str:
        """The time of day as a condition's timestamp says it, on the engine's clock."""
        return conditions.timestamp(self._clock.wall())

    def _reach(self, parent: Obj) -> planning.Reach:
        """Where this parent's children and related objects may lie."""
        namespace = parent["metadata"].get("namespace") or ""
        if self.kind is None:
            return planning.Reach(namespace)
        allowed = self.kind.placement
        return planning.Reach(namespace, allowed.namespaces, allowed.cluster_scoped)

    @property
    def writer(self) -> Api:
        """Who applies and prunes children: the engine, or the kind's own ServiceAccount."""
        account = self.kind.service_account if self.kind else None
        if account is None:
            return self.host.kube
        return self.host.kube.impersonating(f"system:serviceaccount:{account[0]}:{account[1]}")

    def _patcher(self) -> patching.Patcher:
        return patching.Patcher(self.kind, self.host.kube, self.writer, self.resource, self.parents)

    def _applier(self, parent: Obj) -> applying.Applier:
        memory = (self._contention, self._refusals)
        return applying.Applier(self.host, self.name, self.writer, parent, *memory, self._clock.monotonic)
