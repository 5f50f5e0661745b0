"""The generic reconcile loop: one controller per kind.

``KindController.reconcile`` is the whole of Stencil's behaviour and reads top to
bottom: load the parent from the cache, observe its children from the cache,
render, plan, apply, prune, and write the status once.  The three decisions
(``rendering.render``, ``planning.plan``, ``status.derive_status``) are pure; this
module only moves data between them and the API server, and decides what the
queue does next (``KindController.process``).  The queue key is only
``namespace/name``: every reconcile re-reads everything it needs, so a missed or
merged event costs nothing.

The engine around the controllers (kind loading, the shared caches, the workers'
lifecycle) is ``engine.runtime.manager``; the child caches and the routing of
their events are ``engine.runtime.children``.
"""

from __future__ import annotations

import datetime
import logging
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.core.decisions import contention, ordering, planning, sharding, status
from engine.core.model import errors, kinds, placement
from engine.core.templating import rendering
from engine.runtime import events, nesting
from engine.runtime import sharding as shards
from engine.runtime.informers import Across
from engine.runtime.kube import FIELD_MANAGER, Obj, Resource
from engine.runtime.queue import WorkQueue
from engine.runtime.seam import Api
from engine.runtime.watching import DELETED

if TYPE_CHECKING:
    from engine.runtime.manager import Engine
    from engine.runtime.observability import ReconcileResult

log = logging.getLogger("stencil.controller")

UID_INDEX = "uid"
CACHE_WAIT = 1.0  # how soon a reconcile looks again when a child kind's cache is not filled yet
CONFLICT_RECHECK = 10.0  # how often a parent in ChildConflict tries its name again
# A status change that only reports progress (status.only_progress) is written at most this
# often per parent: a Deployment's steps towards Available become one write, not three.
PROGRESS_INTERVAL = 2.0
# A status that only says how far things got (status.can_wait) waits while other parents wait for
# a worker, at most this long: under load, reporting never delays work that changes the cluster,
# and a parent that becomes Ready meanwhile gets one status write instead of two.
REPORT_WAIT = 30.0


@dataclass(frozen=True)
class Result:
    """What a reconcile asks of the queue: nothing, another look after a delay, or (``when_idle``)
    another look once no other parent waits, after the delay at the latest."""

    requeue_after: float | None = None
    when_idle: bool = False  # then: once no other parent waits, or after requeue_after at the latest


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _key(obj: Obj) -> str:
    meta = obj["metadata"]
    return f"{meta.get('namespace') or ''}/{meta['name']}"


class KindController:
    """Reconciles the objects of one kind."""

    def __init__(
        self, engine: Engine, kind: kinds.Kind | None, broken: kinds.BrokenKind | None, resource: Resource
    ) -> None:
        self.engine = engine
        self.kind = kind
        self.broken = broken
        self.resource = resource
        self.name = kind.name if kind else broken.name if broken else resource.kind
        metrics = engine.options.metrics
        self.queue = WorkQueue(observer=metrics.workqueue(self.name) if metrics else None)
        if metrics:
            metrics.workers(self.name, engine.options.workers)
        self.parents: Across = engine.informers.ensure_across(
            resource,
            engine.options.namespaces,
            label_selector=engine.parent_selector,
            on_event=self._on_parent_event,
            resync_period=engine.options.resync,
        )
        self.parents.add_index(UID_INDEX, lambda obj: [str(obj["metadata"].get("uid", ""))])
        self._workers: list[threading.Thread] = []
        self._status_written: dict[str, float] = {}  # parent uid -> when its status was last written
        self._report_waiting: dict[str, float] = {}  # parent uid -> since when its report has waited
        self._contention = contention.Contention()  # fields another writer keeps changing back

    # -- wiring -------------------------------------------------------------

    def _on_parent_event(self, type_: str, obj: Obj, old: Obj | None) -> None:
        if type_ == DELETED:
            self.engine.recorder.forget(str(obj["metadata"].get("uid", "")))
            self._status_written.pop(str(obj["metadata"].get("uid", "")), None)
            self._report_waiting.pop(str(obj["metadata"].get("uid", "")), None)
            self._contention.forget(str(obj["metadata"].get("uid", "")))
            self.engine.children.wait_for_names(self.queue, _key(obj), ())
            return
        self.queue.add(_key(obj))

    def start(self, workers: int) -> None:
        if self._workers:
            return
        for i in range(workers):
            thread = threading.Thread(target=self._work, name=f"{self.name}-worker-{i}", daemon=True)
            thread.start()
            self._workers.append(thread)

    def stop(self) -> None:
        """Take no new work; reconciles under way finish (see ``drain``)."""
        self.queue.shutdown()

    def drain(self, deadline: float) -> bool:
        """Wait until every worker has finished its reconcile, up to ``deadline`` (monotonic)."""
        for worker in self._workers:
            worker.join(max(deadline - time.monotonic(), 0.0))
        return not any(worker.is_alive() for worker in self._workers)

    def replace(self, kind: kinds.Kind | None, broken: kinds.BrokenKind | None) -> None:
        """A new version of the kind folder: reconcile every parent with it."""
        self.kind, self.broken = kind, broken
        for namespace, name, _ in self.parents.versions():  # keys only: decoding every parent at once
            self.queue.add(f"{namespace}/{name}")  # takes gigabytes when they are large

    def _work(self) -> None:
        while True:
            key = self.queue.get()
            if key is None:
                return
            self.process(key)

    def process(self, key: str) -> None:
        """One turn of a worker: reconcile ``key`` and tell the queue what comes next.

        - success: forget the key's failures; look again later only if the result asks;
        - a terminal error (a template that cannot render, a refused placement, a broken
          kind): the status already says why, and retrying cannot help until the input
          changes, which enqueues the parent anyway: not retried;
        - the server's trouble (unreachable, 429, 5xx): again after ``retry_after``,
          without counting a failure against the parent, so a long outage does not leave
          every parent with a long backoff once the server is back;
        - any other error: again after the key's exponential backoff.
        """
        metrics = self.engine.options.metrics
        started = time.monotonic()
        outcome: ReconcileResult = "success"
        terminal = False
        if metrics:
            metrics.worker_started(self.name)
        try:
            namespace, _, name = key.partition("/")
            with self.engine.memory.admit(self.parents.size(namespace or None, name)):  # the memory bound
                result = self.reconcile(key)
            self.queue.forget(key)
            if result.when_idle:
                outcome = "requeue_after"
                self.queue.add_when_idle(key, result.requeue_after or REPORT_WAIT)
            elif result.requeue_after is not None:
                outcome = "requeue_after"
                self.queue.add_after(key, result.requeue_after)
        except errors.StencilError as exc:
            outcome = "error"
            terminal = exc.terminal
            log.warning("reconcile failed: %s", exc, extra={"kind": self.name, "key": key})
            if terminal:
                self.queue.forget(key)
            elif exc.retry_after is not None:
                self.queue.add_after(key, exc.retry_after)
            else:
                self.queue.add_rate_limited(key)
        except Exception as exc:  # a bug or a surprise: retried with backoff, with its traceback
            outcome = "error"
            log.warning("reconcile failed: %s", exc, extra={"kind": self.name, "key": key}, exc_info=True)
            self.queue.add_rate_limited(key)
        finally:
            self.queue.done(key)
            if metrics:
                metrics.worker_finished(self.name)
                metrics.reconciled(self.name, outcome, time.monotonic() - started, terminal=terminal)

    # -- the reconcile ----------------------------------------------------------

    def reconcile(self, key: str) -> Result:
        """Bring one parent's children and status in line with its spec.

        Returns what the queue should do next, or raises: a terminal ``StencilError``
        after the status says what is wrong, any other error to be retried.
        """
        namespace, _, name = key.partition("/")
        # 1. Load the parent from the cache; a deleted parent's children go with it (owner references).
        parent = self.parents.get(namespace or None, name)
        if parent is None:
            return Result()
        # Sharded: only a parent this replica owns; one marked draining is handed over instead, from
        # this worker, which holds the key, so no reconcile of it is under way.
        identity = self.engine.options.shard
        if identity is not None and (held := sharding.holding(parent, identity)) is not sharding.Holding.OWNS:
            if held is sharding.Holding.RELEASE:
                shards.release(
                    self.engine.kube,
                    self.parents,
                    self.resource,
                    parent,
                    identity,
                    controller=self.name,
                    metrics=self.engine.options.metrics,
                )
            return Result()
        uid = parent["metadata"]["uid"]
        if parent["metadata"].get("deletionTimestamp"):
            self._clean_up(parent)
            return Result()
        # 2. Observe the children this parent controls, and related objects, from the cache: only
        # within its reach (its namespace, those its placement names), whatever labels claim.
        reach = self._reach(parent)
        complete = self.engine.children.synced_kinds()
        observed = planning.within(self.engine.children.of(uid), reach)
        related = planning.within(
            self.engine.children.related_of(uid, self.kind.observe if self.kind else ()), reach
        )
        mine = planning.owned(observed, uid, reach)  # what templates and the status may read
        # A broken kind folder: say so on every parent, change nothing else.
        if self.kind is None:
            assert self.broken is not None
            self._finish(parent, mine, related, status.Outcome(kind_error=self.broken.error))
            raise self.broken.error
        # 3. Render the desired children (pure; a template error is terminal until the input changes).
        try:
            if too_deep := nesting.refusal(parent):
                raise too_deep
            located = rendering.render_located(
                self.kind, parent, mine, is_namespaced=self.engine.kube.is_namespaced
            )
        except errors.StencilError as exc:
            self._finish(parent, mine, related, status.Outcome(render_error=exc))
            self.engine.recorder.emit(parent, events.WARNING, exc.reason, str(exc))
            raise
        rendered = [(child.template, child.child) for child in located]
        desired = [child for _, child in rendered]
        # Plan only against complete caches: a child kind whose first listing is still under
        # way (or failing) would look like missing children.  Its sync wakes nobody, so look again.
        if not self.engine.children.watch(desired):
            log.info("waiting for the caches of its child kinds", extra={"kind": self.name, "key": key})
            return Result(requeue_after=CACHE_WAIT)
        observed = planning.within(
            self.engine.children.of(uid, also=desired, read=(observed, complete)), reach
        )
        mine = planning.owned(observed, uid, reach)
        # Children beyond owner references' reach (another namespace, cluster-scoped) are
        # created only under a finalizer, so the engine can delete them with the parent.
        if planning.needs_finalizer(desired):
            parent = self._set_finalizer(parent, hold=True)
        # 4. Plan: what differs from the cache, what to prune, what belongs to someone else; a child
        # whose `after:` templates are not all healthy yet is not created (its dependency's events wake us).
        gate = ordering.gate(rendered, mine, _now())
        plan = planning.plan(gate.ready, observed, uid, reach)
        desired_refs = tuple(planning.ref(c) for c in desired)
        origins = ordering.origins(rendered)
        waiting = tuple(w.message for w in gate.waiting)
        for _ in plan.unchanged:
            self.engine.count("skip", self.name)
        # 5. Apply every child that is missing or drifted (server-side apply, one field manager);
        # a name held by another object is a conflict, and the parent waits for that name.  A
        # field that another writer keeps changing back is restored ever more slowly (contention).
        conflicts = {r: message for r, message in plan.conflicts}
        created: list[Obj] = []  # one event says what this reconcile created, however many
        contests: list[contention.Contest] = []
        try:
            for apply in plan.applies:
                if holding := self._held(parent, apply):
                    contests.extend(holding)
                    continue
                conflict = self._apply(parent, apply, created, contests)
                if conflict:
                    conflicts[planning.ref(apply.obj)] = conflict
        except errors.ApiError as exc:
            outcome = status.Outcome(
                apply_error=exc,
                desired=desired_refs,
                waiting=waiting,
                origins=origins,
                contested=tuple(c.message for c in contests),
            )
            self._finish(parent, mine, related, outcome)
            self.engine.recorder.emit(parent, events.WARNING, "ApplyFailed", str(exc))
            raise
        finally:
            if created:
                self._emit_written(parent, "Created", created)
        self.engine.children.wait_for_names(self.queue, key, conflicts)
        # 6. Prune only after every apply succeeded, and only children this parent controls.
        if not conflicts:
            for prune in plan.prunes:
                self._prune(parent, prune)
        # 7. Derive the status from what is observed now and write it once, if it changed
        # (a status that only says how far things got may wait: see _finish).
        if plan.applies or plan.prunes:  # our writes are in the cache: read them
            mine = planning.owned(self.engine.children.of(uid, also=desired), uid, reach)
        # A dependency this reconcile created may already be Current (a Namespace, a ConfigMap).
        # Its watch event carries the version cached from the create's answer and wakes nobody,
        # and such an object sends no later one: decide the gate again now, not at the resync.
        if gate.waiting and plan.applies and _releases(gate, ordering.gate(rendered, mine, _now())):
            return Result(requeue_after=0.0)
        again = self._finish(
            parent,
            mine,
            related,
            status.Outcome(
                conflicts=tuple(conflicts.values()),
                desired=desired_refs,
                waiting=waiting,
                origins=origins,
                contested=tuple(c.message for c in contests),
            ),
            progress_may_wait=True,
        )
        for conflict in conflicts.values():
            self.engine.recorder.emit(parent, events.WARNING, "ChildConflict", conflict)
        applied = len(plan.applies) - (len(conflicts) - len(plan.conflicts))
        context = {
            "kind": self.name,
            "key": key,
            "applied": applied,
            "unchanged": len(plan.unchanged),
            "pruned": 0 if conflicts else len(plan.prunes),
            "conflicts": len(conflicts),
            "waiting": sum(len(w.children) for w in gate.waiting),
        }
        log.log(
            logging.INFO if plan.applies or plan.prunes or conflicts else logging.DEBUG,
            "reconciled",
            extra=context,
        )
        if again is not None:
            return again  # a stale read (at once), or a report to write later
        if contests:  # restore the contested fields when their back-off ends
            return Result(requeue_after=min(c.retry_in for c in contests))
        # A name held by an object outside Stencil's caches: its deletion wakes nobody.
        return Result(requeue_after=CONFLICT_RECHECK if conflicts else None)

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
            return self.engine.kube
        return self.engine.kube.impersonating(f"system:serviceaccount:{account[0]}:{account[1]}")

    def _held(self, parent: Obj, apply: planning.Apply) -> list[contention.Contest]:
        """The contests that hold back this update: every field it would restore is one that
        another writer keeps changing back, still backing off.  A hold that is news names the
        other writer from the server's ``managedFields`` and says so in a Warning event."""
        if apply.current is None:
            return []
        uid, child = parent["metadata"]["uid"], planning.ref(apply.obj)
        held = self._contention.held(uid, child, _restoring(apply.current, apply.obj), time.monotonic())
        if not held or all(c.announced for c in held):
            return held
        res = self.writer.resource(child.api_version, child.kind)
        now = self.writer.get(res, child.name, child.namespace or None) or {}
        announced = []
        for contest in held:
            managers = contention.other_managers(now, contest.path, FIELD_MANAGER)
            announced.append(self._contention.announce(uid, contest, managers))
            self.engine.recorder.emit(parent, events.WARNING, "ContestedField", announced[-1].message)
        return announced

    def _apply(
        self, parent: Obj, apply: planning.Apply, created: list[Obj], contests: list[contention.Contest]
    ) -> str | None:
        """Create or server-side apply one child; a conflict description instead if the name
        is held by an object this parent does not control.  A child it creates is added to
        ``created``, a field it restored that is contested now to ``contests``."""
        child = apply.obj
        uid = parent["metadata"]["uid"]
        if apply.create:
            # Claim the name atomically: of two parents rendering one name, only one create-only
            # apply succeeds; the other gets AlreadyExists and must not apply over the winner.
            try:
                made = self.writer.apply(child, create_only=True)
            except errors.AlreadyExists:
                res = self.writer.resource(child["apiVersion"], child["kind"])
                existing = self.writer.get(res, child["metadata"]["name"], child["metadata"].get("namespace"))
                if existing is None:
                    raise  # deleted again since: the next reconcile creates it
                self.engine.children.remember(existing)
                if not planning.controlled_by(existing, uid):
                    described = planning.describe(planning.ref(child))
                    return f"{described} already exists and is not controlled by this {parent['kind']}"
                if planning.contains(existing, child):
                    return None
                return self._update(parent, child, existing, contests)
            self.engine.children.remember(made)
            self.engine.count("apply", self.name)
            created.append(child)
            return None
        return self._update(parent, child, apply.current, contests)

    def _update(
        self, parent: Obj, child: Obj, current: Obj | None, contests: list[contention.Contest]
    ) -> str | None:
        """Server-side apply a child this parent controls; what it restored is recorded, and a
        field contested now is added to ``contests``.

        The uid of the object the plan was made against goes along as a precondition: if
        that object was deleted and its name taken by another parent's child in between,
        the server refuses instead of handing the name over.
        """
        body = child
        if current is not None:
            body = {**child, "metadata": {**child["metadata"], "uid": current["metadata"]["uid"]}}
        try:
            applied = self.writer.apply(body)
        except (errors.Conflict, errors.Invalid):
            # The server words a uid that does not match as a conflict when the object is
            # gone and as an immutable field when another took its name: look, then decide.
            res = self.writer.resource(child["apiVersion"], child["kind"])
            now = self.writer.get(res, child["metadata"]["name"], child["metadata"].get("namespace"))
            if now is None or current is None or now["metadata"]["uid"] == current["metadata"]["uid"]:
                raise  # gone (its deletion wakes this parent to create it again), or truly refused
            self.engine.children.remember(now)
            if planning.controlled_by(now, parent["metadata"]["uid"]):
                raise
            described = planning.describe(planning.ref(child))
            return f"{described} was replaced by an object this {parent['kind']} does not control"
        self.engine.children.remember(applied)
        self.engine.count("apply", self.name)
        fields = planning.drift(current, child) if current is not None else []
        self._emit_written(parent, "Updated", [child], fields)
        if current is not None:
            restored = {path: contention.value_at(child, path) for path in _restoring(current, child)}
            uid, ref = parent["metadata"]["uid"], planning.ref(child)
            contests.extend(self._contention.restored(uid, ref, restored, time.monotonic()))
        return None

    def _emit_written(
        self, parent: Obj, verb: str, written: list[Obj], fields: list[str] | None = None
    ) -> None:
        """The event of writes; an update says which rendered fields it restored (at most five)."""
        message = f"{verb} " + ", ".join(planning.describe(planning.ref(child)) for child in written)
        if fields:
            more = f" and {len(fields) - 5} more" if len(fields) > 5 else ""
            message += ": " + ", ".join(fields[:5]) + more
        self.engine.recorder.emit(parent, events.NORMAL, verb, message)

    def _prune(self, parent: Obj, prune: planning.Prune) -> None:
        res = self.writer.resource(prune.api_version, prune.kind)
        try:
            if not self.writer.delete(res, prune.name, prune.namespace or None, uid=prune.uid):
                return  # already gone
        except errors.Conflict:
            return  # the uid precondition failed: that object is not the one we meant
        self.engine.count("prune", self.name)
        self.engine.recorder.emit(
            parent, events.NORMAL, "Pruned", f"Deleted {prune.kind} {prune.name}: no longer rendered"
        )

    def _set_finalizer(self, parent: Obj, *, hold: bool) -> Obj:
        """Add or remove Stencil's finalizer (a compare-and-swap JSON patch); the parent as it is now."""
        ops = planning.finalizer_patch(parent, hold=hold)
        if ops is None:
            return parent
        meta = parent["metadata"]
        written = self.engine.kube.patch_json(self.resource, meta["name"], meta.get("namespace"), ops)
        self.parents.observe(written)
        return written

    def _clean_up(self, parent: Obj) -> None:
        """A parent being deleted: delete the children garbage collection cannot, then let it go.

        They are found by listing, not from the cache, since a child in another namespace
        may lie outside what this engine watches; a rare request on a rare event.
        """
        if planning.FINALIZER not in (parent["metadata"].get("finalizers") or ()):
            return
        uid = parent["metadata"]["uid"]
        for resource in self.engine.children.resources(self.kind):
            children, _ = self.engine.kube.list(
                resource, label_selector=f"{placement.PARENT_UID_LABEL}={uid}"
            )
            for child in planning.label_owned(children, uid, self._reach(parent)):
                meta = child["metadata"]
                self._prune(
                    parent,
                    planning.Prune(
                        resource.api_version,
                        resource.kind,
                        meta.get("namespace") or "",
                        meta["name"],
                        meta["uid"],
                    ),
                )
        self._set_finalizer(parent, hold=False)

    def _finish(
        self,
        parent: Obj,
        observed: list[Obj],
        related: list[Obj],
        outcome: status.Outcome,
        *,
        progress_may_wait: bool = False,
    ) -> Result | None:
        """Write the parent's status through the status subresource, once, only if it changed;
        then delete the parent if the kind's ``deleteWhen`` rule says its work is done.

        Returns when to reconcile again, or None: at once if the status was derived from a
        stale read of the parent (the server refused the write's resourceVersion): the
        parent changed meanwhile, so its newer state is cached.  With ``progress_may_wait``
        (a reconcile that will be looked at again, not one ending in an error), a status
        that only says how far things got (``status.can_wait``) is not written yet
        - while other parents wait for a worker, for at most ``REPORT_WAIT``: once the
          queue is empty, it (or something newer) is;
        - less than ``PROGRESS_INTERVAL`` after the last write, when it only reports
          progress: when the interval is over.
        """
        assert self.kind is not None or self.broken is not None
        kind = self.kind or _placeholder(self.broken)
        now = _now()
        new = status.derive_status(kind, parent, observed, outcome, now, related)
        meta = parent["metadata"]
        ops = status.status_patch(parent, new)
        if ops is None:
            self._report_waiting.pop(meta["uid"], None)  # nothing left to report
        else:
            if progress_may_wait and status.can_wait(parent.get("status"), new):
                clock = time.monotonic()
                waiting = clock - self._report_waiting.setdefault(meta["uid"], clock)
                if self.queue.waiting_besides(_key(parent)) and waiting < REPORT_WAIT:
                    return Result(requeue_after=REPORT_WAIT - waiting, when_idle=True)
                since = clock - self._status_written.get(meta["uid"], -PROGRESS_INTERVAL)
                if since < PROGRESS_INTERVAL and status.only_progress(parent.get("status"), new):
                    return Result(requeue_after=PROGRESS_INTERVAL - since)
            try:
                written = self.engine.kube.patch_status(
                    self.resource, meta["name"], meta.get("namespace"), ops
                )
            except errors.Conflict:
                self._refresh(parent)
                return Result(requeue_after=0.0)
            except errors.NotFound:
                return None  # deleted meanwhile: nothing left to report on
            # Read our own write: the next reconcile must not see the old status and write again.
            self.parents.observe(written)
            self._status_written[meta["uid"]] = time.monotonic()
            self._report_waiting.pop(meta["uid"], None)
            self.engine.count("status", self.name)
        if not status.should_delete(kind, parent, new, observed, related, now, origins=outcome.origins):
            return None
        if self.engine.kube.delete(self.resource, meta["name"], meta.get("namespace"), uid=meta["uid"]):
            message = f"Deleted {parent['kind']} {meta['name']}: its deleteWhen rule holds"
            self.engine.recorder.emit(parent, events.NORMAL, "Completed", message)
        return None

    def _refresh(self, parent: Obj) -> None:
        """Read the parent again into the cache (only newer states replace what is cached)."""
        meta = parent["metadata"]
        current = self.engine.kube.get(self.resource, meta["name"], meta.get("namespace"))
        if current is not None:
            self.parents.observe(current)


def _restoring(current: Obj, child: Obj) -> list[contention.Path]:
    """The rendered fields an update of ``current`` to ``child`` puts back (not the content hash,
    which is Stencil's own and follows the others)."""
    hash_path = ("metadata", "annotations", planning.HASH_ANNOTATION)
    return [path for path in contention.differences(current, child) if path != hash_path]


def _releases(before: ordering.Gate, after: ordering.Gate) -> bool:
    """Whether ``after`` lets a child through that ``before`` held back."""
    return len(after.ready) > len(before.ready)


def _placeholder(broken: kinds.BrokenKind | None) -> kinds.Kind:
    """A kind with no templates or rules, standing in for a broken one when deriving status."""
    assert broken is not None and broken.api_version and broken.kind
    return kinds.Kind(broken.name, broken.directory, broken.api_version, broken.kind, templates=())
