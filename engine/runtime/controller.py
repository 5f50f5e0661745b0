"""The generic reconcile loop: one controller per kind, one engine for all kinds.

``KindController.reconcile`` is the whole of Stencil's behaviour and reads top to
bottom: load the parent from the cache, observe its children from the cache,
render, plan, apply, prune, and write the status once.  The three decisions
(``rendering.render``, ``planning.plan``, ``status.derive_status``) are pure; this
module only moves data between them and the API server.

``Engine`` is the shell around the controllers: it loads the kind folders and
reloads them when their files change, keeps one informer per parent kind and
one per child kind (children are found by Stencil's labels, so a cache holds
only objects Stencil manages), routes child events to the parent's queue, and
runs the workers.  The queue key is only ``namespace/name``: every reconcile
re-reads everything it needs, so a missed or merged event costs nothing.
"""

from __future__ import annotations

import datetime
import logging
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import yaml

from engine.core import errors, kinds, planning, rbac, rendering, status
from engine.runtime import events
from engine.runtime.kube import Kube, Obj, Resource
from engine.runtime.queue import WorkQueue
from engine.runtime.watching import DELETED, Across, Informer, InformerSet

if TYPE_CHECKING:
    from engine.runtime.observability import Metrics, ReconcileResult

log = logging.getLogger("stencil.controller")

MANAGED_SELECTOR = f"{rendering.MANAGED_BY_LABEL}={rendering.MANAGED_BY_VALUE}"
BUNDLE_LABEL = "stencil.dev/kind-bundle"  # a ConfigMap carrying one kind folder, one file per key
BUNDLE_NAME_ANNOTATION = "stencil.dev/kind-name"  # the kind's name, if not the ConfigMap's
OWNER_INDEX = "parent-uid"
UID_INDEX = "uid"
RELATED_SELECTOR = rendering.PARENT_UID_LABEL  # related objects: any that carry the label
CACHE_SYNC_WAIT = 2.0  # how long a reconcile waits for a new child kind's first listing
CACHE_WAIT = 1.0  # then, how soon it looks again
CONFLICT_RECHECK = 10.0  # how often a parent in ChildConflict tries its name again


@dataclass(frozen=True)
class Result:
    """What a reconcile asks of the queue: nothing, or another look after a delay."""

    requeue_after: float | None = None


@dataclass
class Options:
    workers: int = 4
    resync: float = 600.0
    namespaces: tuple[str, ...] = ()  # the namespaces to watch; none given: all
    reload_interval: float = 1.0  # how often the templates folder is checked for changes
    metrics: Metrics | None = None
    bundle_namespace: str | None = None  # also serve kinds from labelled ConfigMaps in this namespace
    run_workers: bool = True  # False: keep caches warm but reconcile nothing (a standby replica)


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _key(obj: Obj) -> str:
    meta = obj["metadata"]
    return f"{meta.get('namespace') or ''}/{meta['name']}"


def owner_index(obj: Obj) -> list[str]:
    """Index children by the uid of the parent that controls them."""
    uid = planning.controller_uid(obj)
    if uid is None:
        uid = (obj.get("metadata", {}).get("labels") or {}).get(rendering.PARENT_UID_LABEL)
    return [uid] if uid else []


def labelled_parent(obj: Obj) -> list[str]:
    """Index related objects by the parent uid they are labelled with (their own controller,
    say a ReplicaSet for a Pod, is not the parent)."""
    uid = (obj.get("metadata", {}).get("labels") or {}).get(rendering.PARENT_UID_LABEL)
    return [uid] if uid else []


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
            on_event=self._on_parent_event,
            resync_period=engine.options.resync,
        )
        self.parents.add_index(UID_INDEX, lambda obj: [str(obj["metadata"].get("uid", ""))])
        self._workers: list[threading.Thread] = []

    # -- wiring -------------------------------------------------------------

    def _on_parent_event(self, type_: str, obj: Obj, old: Obj | None) -> None:
        if type_ == DELETED:
            self.engine.recorder.forget(str(obj["metadata"].get("uid", "")))
            self.engine.wait_for_names(_key(obj), self, ())
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
        for parent in self.parents.list():
            self.queue.add(_key(parent))

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
            result = self.reconcile(key)
            self.queue.forget(key)
            if result.requeue_after is not None:
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
        uid = parent["metadata"]["uid"]
        if parent["metadata"].get("deletionTimestamp"):
            self._clean_up(parent)
            return Result()
        # 2. Observe the children this parent controls, and related objects, from the cache.
        observed = self.engine.children_of(uid)
        related = self.engine.related_of(uid, self.kind.observe if self.kind else ())
        # A broken kind folder: say so on every parent, change nothing else.
        if self.kind is None:
            assert self.broken is not None
            self._finish(parent, observed, related, status.Outcome(kind_error=self.broken.error))
            raise self.broken.error
        # 3. Render the desired children (pure; a template error is terminal until the input changes).
        try:
            desired = rendering.render(
                self.kind, parent, observed, is_namespaced=self.engine.kube.is_namespaced
            )
        except errors.StencilError as exc:
            self._finish(parent, observed, related, status.Outcome(render_error=exc))
            self.engine.recorder.emit(parent, events.WARNING, exc.reason, str(exc))
            raise
        # Plan only against complete caches: a child kind whose first listing is still under
        # way (or failing) would look like missing children.  Its sync wakes nobody, so look again.
        if not self.engine.watch_children(desired):
            log.info("waiting for the caches of its child kinds", extra={"kind": self.name, "key": key})
            return Result(requeue_after=CACHE_WAIT)
        observed = self.engine.children_of(uid, also=desired)
        # Children beyond owner references' reach (another namespace, cluster-scoped) are
        # created only under a finalizer, so the engine can delete them with the parent.
        if planning.needs_finalizer(desired):
            parent = self._set_finalizer(parent, hold=True)
        # 4. Plan: what differs from the cache, what to prune, what belongs to someone else.
        plan = planning.plan(desired, observed, uid)
        desired_refs = tuple((c["apiVersion"], c["kind"], c["metadata"]["name"]) for c in desired)
        for _ in plan.unchanged:
            self.engine.count("skip", self.name)
        # 5. Apply every child that is missing or drifted (server-side apply, one field manager);
        # a name held by another object is a conflict, and the parent waits for that name.
        conflicts = {r: message for r, message in plan.conflicts}
        try:
            for apply in plan.applies:
                conflict = self._apply(parent, apply)
                if conflict:
                    conflicts[planning.ref(apply.obj)] = conflict
        except errors.ApiError as exc:
            self._finish(parent, observed, related, status.Outcome(apply_error=exc, desired=desired_refs))
            self.engine.recorder.emit(parent, events.WARNING, "ApplyFailed", str(exc))
            raise
        self.engine.wait_for_names(key, self, conflicts)
        # 6. Prune only after every apply succeeded, and only children this parent controls.
        if not conflicts:
            for prune in plan.prunes:
                self._prune(parent, prune)
        # 7. Derive the status from what is observed now and write it once, if it changed.
        observed = self.engine.children_of(uid, also=desired)
        written = self._finish(
            parent,
            observed,
            related,
            status.Outcome(conflicts=tuple(conflicts.values()), desired=desired_refs),
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
        }
        log.log(
            logging.INFO if plan.applies or plan.prunes or conflicts else logging.DEBUG,
            "reconciled",
            extra=context,
        )
        if not written:
            return Result(requeue_after=0.0)  # the status was written from a stale read: again
        # A name held by an object outside Stencil's caches: its deletion wakes nobody.
        return Result(requeue_after=CONFLICT_RECHECK if conflicts else None)

    @property
    def writer(self) -> Kube:
        """Who applies and prunes children: the engine, or the kind's own ServiceAccount."""
        account = self.kind.service_account if self.kind else None
        if account is None:
            return self.engine.kube
        return self.engine.kube.impersonating(f"system:serviceaccount:{account[0]}:{account[1]}")

    def _apply(self, parent: Obj, apply: planning.Apply) -> str | None:
        """Create or server-side apply one child; a conflict description instead if the name
        is held by an object this parent does not control."""
        child = apply.obj
        uid = parent["metadata"]["uid"]
        if apply.create:
            # Claim the name atomically: of two parents rendering one name, only one create
            # succeeds; the other gets AlreadyExists and must not apply over the winner.
            res = self.writer.resource(child["apiVersion"], child["kind"])
            try:
                created = self.writer.claim_fields(res, self.writer.create(child))
            except errors.AlreadyExists:
                existing = self.writer.get(res, child["metadata"]["name"], child["metadata"].get("namespace"))
                if existing is None:
                    raise  # deleted again since: the next reconcile creates it
                self.engine.remember(existing)
                if not planning.controlled_by(existing, uid):
                    described = planning.describe(planning.ref(child))
                    return f"{described} already exists and is not controlled by this {parent['kind']}"
                if planning.contains(existing, child):
                    return None
                return self._update(parent, child, existing)
            self.engine.remember(created)
            self.engine.count("apply", self.name)
            self._emit_written(parent, "Created", child)
            return None
        return self._update(parent, child, apply.current)

    def _update(self, parent: Obj, child: Obj, current: Obj | None) -> str | None:
        """Server-side apply a child this parent controls.

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
            self.engine.remember(now)
            if planning.controlled_by(now, parent["metadata"]["uid"]):
                raise
            described = planning.describe(planning.ref(child))
            return f"{described} was replaced by an object this {parent['kind']} does not control"
        self.engine.remember(applied)
        self.engine.count("apply", self.name)
        self._emit_written(parent, "Updated", child)
        return None

    def _emit_written(self, parent: Obj, verb: str, child: Obj) -> None:
        self.engine.recorder.emit(
            parent, events.NORMAL, verb, f"{verb} {planning.describe(planning.ref(child))}"
        )

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
        for resource in self.engine.child_resources(self.kind):
            children, _ = self.engine.kube.list(
                resource, label_selector=f"{rendering.PARENT_UID_LABEL}={uid}"
            )
            for child in planning.label_owned(children, uid):
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
        self, parent: Obj, observed: list[Obj], related: list[Obj], outcome: status.Outcome
    ) -> bool:
        """Write the parent's status through the status subresource, once, only if it changed;
        then delete the parent if the kind's ``deleteWhen`` rule says its work is done.

        False if the status was derived from a stale read of the parent (the server refused
        the write's resourceVersion): the parent changed meanwhile, so its newer state is
        cached and it must be reconciled again.
        """
        assert self.kind is not None or self.broken is not None
        kind = self.kind or _placeholder(self.broken)
        new = status.derive_status(kind, parent, observed, outcome, _now(), related)
        meta = parent["metadata"]
        ops = status.status_patch(parent, new)
        if ops is not None:
            try:
                written = self.engine.kube.patch_status(
                    self.resource, meta["name"], meta.get("namespace"), ops
                )
            except errors.Conflict:
                self._refresh(parent)
                return False
            except errors.NotFound:
                return True  # deleted meanwhile: nothing left to report on
            # Read our own write: the next reconcile must not see the old status and write again.
            self.parents.observe(written)
            self.engine.count("status", self.name)
        if not status.should_delete(kind, parent, new, observed, related):
            return True
        if self.engine.kube.delete(self.resource, meta["name"], meta.get("namespace"), uid=meta["uid"]):
            message = f"Deleted {parent['kind']} {meta['name']}: its deleteWhen rule holds"
            self.engine.recorder.emit(parent, events.NORMAL, "Completed", message)
        return True

    def _refresh(self, parent: Obj) -> None:
        """Read the parent again into the cache (only newer states replace what is cached)."""
        meta = parent["metadata"]
        current = self.engine.kube.get(self.resource, meta["name"], meta.get("namespace"))
        if current is not None:
            self.parents.observe(current)


@dataclass
class Engine:
    """Loads kinds, keeps the caches, and runs one controller per kind."""

    kube: Kube
    templates: Path
    options: Options = field(default_factory=Options)
    counters: dict[tuple[str, str], int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.informers = InformerSet(self.kube)
        self.recorder = events.Recorder(self.kube)
        self.controllers: dict[tuple[str, str], KindController] = {}  # by parent (apiVersion, kind)
        self._child_informers: dict[tuple[str, str], Across] = {}
        self._related_informers: dict[tuple[str, str], Across] = {}
        # Parents in ChildConflict, by the child name they wait for, and the other way round.
        self._waiting: dict[_Name, set[tuple[KindController, str]]] = {}
        self._waits_of: dict[tuple[KindController, str], set[_Name]] = {}
        self._digests: dict[str, str] | None = None  # of the kinds last served completely
        self._fingerprint: tuple[tuple[str, int, int], ...] | None = None  # of the files last served
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._bundles: Informer | None = None
        self._loaded = threading.Event()  # the kinds were loaded and served at least once
        self._bundle_dir = Path(tempfile.mkdtemp(prefix="stencil-kinds-"))
        self._run_workers = self.options.run_workers

    # -- kinds ----------------------------------------------------------------

    def load(self) -> None:
        """(Re)load every kind folder; start, update or stop their controllers.

        Called every ``reload_interval``: folders whose files did not change (by name, size
        and modification time) are not parsed again, so an idle engine costs nothing here.
        """
        roots = [self.templates]
        if self._bundles is not None:
            roots.append(self._materialize_bundles())
        fingerprint = _fingerprint(roots)
        if fingerprint == self._fingerprint:
            return
        loaded, broken = kinds.load_kinds(self.templates) if self.templates.is_dir() else ({}, {})
        if self._bundles is not None:
            more, more_broken = kinds.load_kinds(self._bundle_dir)
            for name in set(more) | set(more_broken):
                if name in loaded or name in broken:
                    log.warning(
                        "kind %s comes from both the templates folder and a ConfigMap; the folder wins", name
                    )
            loaded = {**more, **loaded}
            broken = {**more_broken, **broken}
        digests = {name: k.digest for name, k in loaded.items()}
        digests.update({name: f"broken:{b.error}" for name, b in broken.items()})
        if digests == self._digests:
            self._fingerprint = fingerprint
            return
        complete = True  # every kind served; otherwise the next pass tries again
        seen: set[tuple[str, str]] = set()
        for name, b in broken.items():
            log.error("kind %s is broken: %s", name, b.error, extra={"kind": name})
            if b.api_version and b.kind:
                complete &= self._serve((b.api_version, b.kind), None, b)
                seen.add((b.api_version, b.kind))
        for kind in loaded.values():
            complete &= self._serve((kind.api_version, kind.kind), kind, None)
            seen.add((kind.api_version, kind.kind))
            self.watch_children(_known_child_kinds(kind), wait=0)
            self.watch_related(kind)
        for gvk in [g for g in self.controllers if g not in seen]:
            log.info("kind for %s removed; no longer reconciling it", gvk[1])
            removed = self.controllers.pop(gvk)
            removed.stop()
            self.informers.remove_across(removed.resource, self.options.namespaces)
        if complete:  # otherwise the next pass loads again, whatever the files say
            self._digests = digests
            self._fingerprint = fingerprint
            self._loaded.set()

    def _serve(self, gvk: tuple[str, str], kind: kinds.Kind | None, broken: kinds.BrokenKind | None) -> bool:
        """Start or update the controller for a parent kind; False if its API is not there yet."""
        current = self.controllers.get(gvk)
        if current is not None:
            if current.kind != kind or current.broken != broken:
                current.replace(kind, broken)
            return True
        try:
            resource = self.kube.resource(*gvk)
        except errors.NotFound:
            log.warning("no API resource for %s %s yet (is its CRD installed?); will retry", *gvk)
            return False
        controller = KindController(self, kind, broken, resource)
        self.controllers[gvk] = controller
        if self._run_workers:
            controller.start(self.options.workers)
        return True

    def run_workers(self) -> None:
        """Start reconciling (this replica became the leader)."""
        self._run_workers = True
        for controller in list(self.controllers.values()):
            controller.start(self.options.workers)

    # -- kinds delivered as ConfigMaps -------------------------------------------

    def _materialize_bundles(self) -> Path:
        """Write each labelled ConfigMap's files as a kind folder under a private directory."""
        assert self._bundles is not None
        wanted: dict[str, dict[str, str]] = {}
        for cm in self._bundles.list():
            meta = cm["metadata"]
            name = (meta.get("annotations") or {}).get(BUNDLE_NAME_ANNOTATION) or meta["name"]
            if "/" in name or name.startswith("."):
                log.warning("ConfigMap %s names an invalid kind folder %r", meta["name"], name)
                continue
            wanted[name] = {k: v for k, v in (cm.get("data") or {}).items() if "/" not in k}
        for folder in self._bundle_dir.iterdir():
            if folder.name not in wanted:
                shutil.rmtree(folder)
        for name, files in wanted.items():
            folder = self._bundle_dir / name
            folder.mkdir(exist_ok=True)
            for stale in folder.iterdir():
                if stale.is_file() and stale.name not in files:
                    stale.unlink()
            for filename, text in files.items():
                target = folder / filename
                if not target.exists() or target.read_text() != text:
                    target.write_text(text)
        return self._bundle_dir

    # -- children -------------------------------------------------------------

    def watch_children(self, children: Iterable[Obj], wait: float = CACHE_SYNC_WAIT) -> bool:
        """Make sure every child kind has a cache, and wait up to ``wait`` seconds for the first
        listing of those still without one; False if some still has none.

        Children are cached by Stencil's managed-by label, from the watched namespaces:
        a kind that places children elsewhere needs the engine to watch every namespace.
        """
        deadline = time.monotonic() + wait
        synced = True
        for gvk in sorted({(child["apiVersion"], child["kind"]) for child in children}):
            cache = self._cache(
                self._child_informers, gvk, MANAGED_SELECTOR, self._on_child_event, owner_index
            )
            if cache is not None and not cache.wait_for_sync(max(deadline - time.monotonic(), 0.0)):
                synced = False
        return synced

    def watch_related(self, kind: kinds.Kind) -> None:
        """Cache the kind's ``observe`` objects (those labelled with a parent uid) and wake parents."""
        for gvk in kind.observe:
            if self._cache(
                self._related_informers, gvk, RELATED_SELECTOR, self._on_related_event, labelled_parent
            ) is None:
                log.warning("kind %s observes %s %s, which the server does not serve", kind.name, *gvk)

    def _cache(
        self,
        caches: dict[tuple[str, str], Across],
        gvk: tuple[str, str],
        selector: str,
        handler: Callable[[str, Obj, Obj | None], None],
        index: Callable[[Obj], list[str]],
    ) -> Across | None:
        """The label-selected cache of ``gvk`` in ``caches``, indexed by parent uid, made and
        started once; None if the server does not serve that kind.

        Nothing here waits for the cache to fill, and discovery happens outside the engine's
        lock: a child kind whose listing hangs must not stall the workers of other kinds.
        """
        cache = caches.get(gvk)
        if cache is not None:
            return cache
        try:
            resource = self.kube.resource(*gvk)
        except errors.NotFound:
            return None
        with self._lock:
            cache = caches.get(gvk)
            if cache is None:
                cache = self.informers.ensure_across(
                    resource, self.options.namespaces, label_selector=selector, on_event=handler
                )
                cache.add_index(OWNER_INDEX, index)
                caches[gvk] = cache
            return cache

    def related_of(self, uid: str, gvks: Iterable[tuple[str, str]]) -> list[Obj]:
        found: list[Obj] = []
        for gvk in gvks:
            informer = self._related_informers.get(gvk)
            if informer is not None:
                found.extend(informer.by_index(OWNER_INDEX, uid))
        return found

    def _on_related_event(self, type_: str, obj: Obj, old: Obj | None) -> None:
        for uid in labelled_parent(obj):
            self._wake(uid)

    def _wake(self, uid: str) -> None:
        for controller in list(self.controllers.values()):
            for parent in controller.parents.by_index(UID_INDEX, uid):
                controller.queue.add(_key(parent))

    def child_resources(self, kind: kinds.Kind | None) -> list[Resource]:
        """Every child resource a kind may have made: what is watched, and what it can render."""
        gvks = set(self._child_informers)
        if kind is not None:
            gvks |= {(c["apiVersion"], c["kind"]) for c in _known_child_kinds(kind)}
        found = []
        for gvk in sorted(gvks):
            try:
                found.append(self.kube.resource(*gvk))
            except errors.NotFound:
                continue
        return found

    def children_of(self, uid: str, also: Iterable[Obj] = ()) -> list[Obj]:
        """Cached children controlled by ``uid``, plus cached objects named like ``also``."""
        found: dict[tuple[str, str, str, str], Obj] = {}
        for informer in list(self._child_informers.values()):
            for obj in informer.by_index(OWNER_INDEX, uid):
                found[planning.ref(obj)] = obj
        for child in also:
            named = self._child_informers.get((child["apiVersion"], child["kind"]))
            if named is None:
                continue
            meta = child["metadata"]
            cached = named.get(meta.get("namespace"), meta["name"])
            if cached is not None:
                found[planning.ref(cached)] = cached
        return list(found.values())

    def remember(self, obj: Obj) -> None:
        """Put what the server answered into the cache at once, so the next reconcile reads its writes."""
        informer = self._child_informers.get((obj["apiVersion"], obj["kind"]))
        if informer is not None:
            informer.observe(obj)

    def _on_child_event(self, type_: str, obj: Obj, old: Obj | None) -> None:
        """Wake the parent that controls the child (before and after the change), found by
        its owner reference, which a label edit cannot redirect; and, when a child goes,
        the parents waiting for its name."""
        for uid in {*owner_index(obj), *(owner_index(old) if old is not None else ())}:
            self._wake(uid)
        if type_ == DELETED:
            self._wake_waiting(obj)

    def wait_for_names(self, key: str, controller: KindController, conflicts: Iterable[planning.Ref]) -> None:
        """Record which child names a parent is waiting for (its conflicts now; none clears)."""
        waiter = (controller, key)
        wanted = {_name_of(r) for r in conflicts}
        with self._lock:
            for name in self._waits_of.pop(waiter, set()) - wanted:
                waiting = self._waiting.get(name)
                if waiting is not None:
                    waiting.discard(waiter)
                    if not waiting:
                        del self._waiting[name]
            if wanted:
                self._waits_of[waiter] = wanted
                for name in wanted:
                    self._waiting.setdefault(name, set()).add(waiter)

    def _wake_waiting(self, obj: Obj) -> None:
        with self._lock:
            waiters = list(self._waiting.get(_name_of(planning.ref(obj)), ()))
        for controller, key in waiters:
            controller.queue.add(key)

    def count(self, what: str, kind: str) -> None:
        if what != "skip":
            with self._lock:
                self.counters[(what, kind)] = self.counters.get((what, kind), 0) + 1
        metrics = self.options.metrics
        if metrics:
            {"apply": metrics.applied, "prune": metrics.pruned, "skip": metrics.skipped}.get(
                what, lambda _kind: None
            )(kind)

    # -- running --------------------------------------------------------------

    def start(self) -> None:
        """Load the kinds and keep reloading them, in the background.

        Nothing here waits for the API server: an engine started before the server
        is reachable (or its CRDs installed) keeps trying, and ``synced`` stays
        False until the kinds are served and their caches filled.
        """
        threading.Thread(target=self._reload_loop, name="kind-reloader", daemon=True).start()

    def _reload_loop(self) -> None:
        while not self._stop.is_set():
            try:
                self._watch_bundles()
                self.load()
            except Exception as exc:
                log.warning(
                    "loading kinds failed: %s", exc, exc_info=not isinstance(exc, errors.StencilError)
                )
            if self._stop.wait(self.options.reload_interval):
                return

    def _watch_bundles(self) -> None:
        if self.options.bundle_namespace and self._bundles is None:
            bundles = self.informers.ensure(
                self.kube.resource("v1", "ConfigMap"),
                namespace=self.options.bundle_namespace,
                label_selector=f"{BUNDLE_LABEL}=true",
            )
            if not bundles.wait_for_sync(60):
                raise TimeoutError("kind ConfigMaps not listed after 60 s")
            self._bundles = bundles

    def synced(self) -> bool:
        """True once every kind is served and every cache holds its first listing."""
        return (
            self._loaded.is_set()
            and all(c.parents.has_synced for c in list(self.controllers.values()))
            and all(i.has_synced for i in list(self._child_informers.values()))
        )

    def stop(self, grace: float = 20.0) -> bool:
        """Stop taking work, let the reconciles under way finish (up to ``grace`` seconds), then
        stop the caches.  False if some reconcile was still running when the grace ran out."""
        self._stop.set()
        controllers = list(self.controllers.values())
        for controller in controllers:
            controller.stop()
        deadline = time.monotonic() + grace
        drained = all([controller.drain(deadline) for controller in controllers])
        if not drained:
            log.warning("stopping with reconciles still running after %.0f s", grace)
        self.informers.stop_all()
        shutil.rmtree(self._bundle_dir, ignore_errors=True)
        return drained


_Name = tuple[str, str, str, str]  # a child's group, kind, namespace and name


def _name_of(r: planning.Ref) -> _Name:
    """A child's name across versions of its group (the cache may hold another version)."""
    return r[0].rpartition("/")[0], r[1], r[2], r[3]


def _fingerprint(roots: Iterable[Path]) -> tuple[tuple[str, int, int], ...]:
    """Every file under ``roots`` by path, size and modification time: cheap to take each second."""
    found = []
    for root in roots:
        if root.is_dir():
            for path in root.rglob("*"):
                if path.is_file():
                    stat = path.stat()
                    found.append((str(path), stat.st_size, stat.st_mtime_ns))
    return tuple(sorted(found))


def _placeholder(broken: kinds.BrokenKind | None) -> kinds.Kind:
    """A kind with no templates or rules, standing in for a broken one when deriving status."""
    assert broken is not None and broken.api_version and broken.kind
    return kinds.Kind(broken.name, broken.directory, broken.api_version, broken.kind, templates=())


def _known_child_kinds(kind: kinds.Kind) -> list[Obj]:
    """The child kinds a kind can render, as stubs: watched from the start, so a child kind
    that a template no longer renders for some parent is still seen, and pruned.

    They are the kinds its templates spell out, plus those its examples render to
    (an example may need CRD defaults the engine does not have here: then it
    is skipped, and such a kind is watched when first rendered).
    """
    found: set[tuple[str, str]] = set()
    for template in kind.templates:
        found |= rbac.literal_child_kinds(template.text)
    try:
        found |= rbac.rendered_child_kinds(kind)
    except (errors.StencilError, OSError, ValueError, yaml.YAMLError) as error:
        log.debug("kind %s: examples do not render without their CRD defaults: %s", kind.name, error)
    return [{"apiVersion": api_version, "kind": child} for api_version, child in sorted(found)]
