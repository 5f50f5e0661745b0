"""The engine: the kinds, the caches they share, and one controller per kind.

``Engine`` is the shell around the controllers (``engine.runtime.reconciling.reconcile.controller``):
it loads the kind folders and reloads them when their files change (or the
ConfigMaps that carry kinds), keeps one informer per parent kind and the child
caches (``engine.runtime.reconciling.caches.children``), and gives each kind's controller a worker
(``engine.runtime.reconciling.workers.worker``: its queue and threads), which it starts and stops.  A
child's event wakes the controller of the kind its owner reference names, found in an index by
group and kind, not every controller.  It decides nothing about a parent itself.

A kind whose folder moves its hub (``parent.apiVersion``) to another version of its group keeps
its parents, revisions and claim: its controller at the old hub finishes its reconciles, then the
one at the new hub reads the same parents there and takes the old one's route and hold over.

Every kind it serves gets the admin's protected namespaces as its
``placement.off_limits`` (by default ``kube-*`` and the namespace of the kind
ConfigMaps), so no kind, whatever its ``kind.yaml`` allows, writes there: a kind
that could write into that namespace could write kinds.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from engine.core.decisions.coordination import rollout as rollout_core
from engine.core.decisions.coordination.sharding import as_sharder_keeps
from engine.core.model import apis, claimants, errors, kinds
from engine.core.model.objects import Key, Obj
from engine.runtime.cluster import workload
from engine.runtime.cluster.informers import InformerSet
from engine.runtime.cluster.kube import Resource
from engine.runtime.cluster.seam import Api
from engine.runtime.cluster.watching import DELETED, Informer
from engine.runtime.reconciling import events, memory
from engine.runtime.reconciling.caches import children
from engine.runtime.reconciling.host import Counts
from engine.runtime.reconciling.options import (
    Options as Options,  # how an engine is run; read by its controllers
)
from engine.runtime.reconciling.reconcile import decorating
from engine.runtime.reconciling.reconcile.controller import UID_INDEX, KindController
from engine.runtime.reconciling.revisions import Revisions
from engine.runtime.reconciling.workers.queue import WorkQueue
from engine.runtime.reconciling.workers.worker import Worker
from engine.runtime.serving import bundles, sharding

log = logging.getLogger("stencil.controller")

MOVE_GRACE = 20.0  # seconds a kind's reconciles at its old hub may take to finish when it moves


@dataclass
class Engine:
    """Loads kinds, keeps the caches, and runs one controller per kind."""

    kube: Api
    templates: Path
    options: Options = field(default_factory=Options)
    counters: dict[tuple[str, str], int] = field(default_factory=dict)  # ("apply" | "prune" | "status", kind)

    def __post_init__(self) -> None:
        self.informers = InformerSet(self.kube)
        self.memory = memory.Budget()  # bytes of parents decoded for reconciles at once
        metrics = self.options.metrics
        on_drop = metrics.event_dropped if metrics else None
        self.recorder = events.Recorder(self.kube, on_drop=on_drop, clock=self.options.clock)
        self.counts = Counts(self.counters, metrics)  # the controllers count their writes here, by name
        self.controllers: dict[tuple[str, str], KindController] = {}  # by parent (apiVersion, kind)
        self.workers: dict[tuple[str, str], Worker] = {}  # each controller's, by the same key
        self._routes: dict[claimants.GroupKind, KindController] = {}  # the controllers by group and kind
        self.children = children.Children(
            self.kube,
            self.informers,
            self.options.namespaces,
            self._wake,
            shard=self.options.shard,
            read_as=self.options.read_as,
        )
        owner = workload.Owner(self.kube, self.options.pod)  # the engine's Deployment, found once
        namespace = self.options.revisions_namespace
        self.revisions = Revisions(self.kube, namespace, self._bounded, owner.references)
        # The live replicas, when sharded (``sharding.Members``): a rollout adds up their shares.
        self.shard_members: Callable[[], frozenset[str]] | None = None
        self._rollouts: Informer | None = None  # the KindRollouts, when kept in the cluster
        self._unpruned: set[tuple[str, str]] = set()  # kinds whose revisions wait for a filled cache
        self._digests: dict[str, str] | None = None  # of the kinds last served completely
        self._fingerprint: tuple[tuple[str, int, int], ...] | None = None  # of the files last served
        self._stop = threading.Event()
        ns = self.options.bundle_namespace
        self.bundles = bundles.Bundles(self.kube, self.informers, ns) if ns else None
        self._claims_said: set[str] = set()  # the refusals of a later claimant already said
        self._loaded = threading.Event()  # the kinds were loaded and served at least once
        self._run_workers = self.options.run_workers
        self._held: set[tuple[str, str]] = set()  # the kinds this engine holds (``held_kinds_only``)
        self.on_new_kind: Callable[[], object] = lambda: None  # a kind is served anew (its claim to take)

    # -- kinds ----------------------------------------------------------------

    def load(self) -> None:
        """(Re)load every kind folder; start, update or stop their controllers.

        Called every ``reload_interval``: folders whose files did not change (by name, size
        and modification time) are not parsed again, so an idle engine costs nothing here.
        """
        roots = [self.templates]
        bundled = self.bundles if self.bundles is not None and self.bundles.watched else None
        if bundled is not None:
            roots.append(bundled.materialize())
        fingerprint = _fingerprint(roots)
        if fingerprint == self._fingerprint:
            return
        loaded, broken = kinds.load_kinds(self.templates) if self.templates.is_dir() else ({}, {})
        if bundled is not None:
            more, more_broken = kinds.load_kinds(bundled.directory)
            for name in set(more) | set(more_broken):
                if name in loaded or name in broken:
                    log.warning(
                        "kind %s comes from both the templates folder and a ConfigMap; the folder wins", name
                    )
            loaded = {**more, **loaded}
            broken = {**more_broken, **broken}
        self._refuse_later_claimants(loaded, broken)
        loaded = {name: self._bounded(kind) for name, kind in loaded.items()}
        digests = {name: k.digest for name, k in loaded.items()}
        digests.update({name: f"broken:{b.error}" for name, b in broken.items()})
        if digests == self._digests:
            self._fingerprint = fingerprint
            return
        complete = True  # every kind served; otherwise the next pass tries again
        seen: set[claimants.GroupKind] = set()  # at whatever version: a hub moved is served by its own
        for name, b in broken.items():
            log.error("kind %s is broken: %s", name, b.error, extra={"kind": name})
            if b.api_version and b.kind:
                held = self._routes.get(_group_kind(b.api_version, b.kind))
                # A kind with a rollout keeps its parents on the revisions they are on, and says so
                # on its KindRollout; any other says it on every parent.
                if held is None or not held.rollout.hold(b):
                    complete &= self._serve((b.api_version, b.kind), None, b)
                seen.add(_group_kind(b.api_version, b.kind))
        for kind in loaded.values():
            complete &= self._serve((kind.api_version, kind.kind), kind, None) and self._settle(kind)
            seen.add(_group_kind(kind.api_version, kind.kind))
            self.children.watch(children.known_child_kinds(kind), wait=0)
            self.children.watch_related(kind)
        for gvk in [g for g in self.controllers if _group_kind(*g) not in seen]:
            log.info("kind for %s removed; no longer reconciling it", gvk[1])
            self._retire(gvk)
        if complete:  # otherwise the next pass loads again, whatever the files say
            self._digests = digests
            self._fingerprint = fingerprint
            self._loaded.set()

    def _refuse_later_claimants(
        self, loaded: dict[str, kinds.Kind], broken: dict[str, kinds.BrokenKind]
    ) -> None:
        """Take out of ``loaded`` and ``broken`` each kind whose parent kind another kind serves
        (``claimants``: the one serving it now, else the folder's before a ConfigMap's); say
        each refusal once in a log line, and in an event on the kind ConfigMaps it involves."""
        found = [(n, k.directory, k.api_version, k.kind) for n, k in loaded.items()]
        found += [
            (n, b.directory, b.api_version, b.kind) for n, b in broken.items() if b.api_version and b.kind
        ]
        bundle_dir = self.bundles.directory if self.bundles is not None else None
        order = [self._claimant(*f) for f in sorted(found, key=lambda f: (f[1].parent == bundle_dir, f[0]))]
        running = {_group_kind(*gvk): controller.name for gvk, controller in self.controllers.items()}
        for refusal in claimants.settle(running, order):
            loaded.pop(refusal.refused.name, None)
            broken.pop(refusal.refused.name, None)
            message = refusal.message()
            if message not in self._claims_said:
                log.error("%s", message, extra={"kind": refusal.refused.name})
                self._claims_said.add(message)
            for name in (refusal.refused.name, refusal.holder.name):
                cm = self.bundles.configmap(name) if self.bundles is not None else None
                if cm is not None:
                    self.recorder.emit(cm, events.WARNING, "KindRefused", message)

    def _claimant(self, name: str, directory: Path, api_version: str, kind: str) -> claimants.Claimant:
        bundled = self.bundles is not None and directory.parent == self.bundles.directory
        source = self.bundles.source(name) if self.bundles is not None and bundled else str(directory)
        return claimants.Claimant(name, source, _group_kind(api_version, kind))

    def _bounded(self, kind: kinds.Kind) -> kinds.Kind:
        """``kind`` with the protected namespaces off limits to its children, and at most the
        engine's number of children a parent."""
        cap = self.options.max_children or kinds.MAX_CHILDREN
        fewer = min(kind.placement.max_children or cap, cap)
        bounds = dataclasses.replace(kind.placement, off_limits=self.options.off_limits, max_children=fewer)
        return dataclasses.replace(kind, placement=bounds)

    def _retire(self, gvk: tuple[str, str]) -> bool:
        """Stop reconciling the parents of ``gvk`` and stop watching them; whether it was held."""
        removed = self.controllers.pop(gvk)
        if self._routes.get(_group_kind(*gvk)) is removed:  # not its successor at another version
            del self._routes[_group_kind(*gvk)]
        self._unpruned.discard(gvk)
        held = gvk in self._held
        self._held.discard(gvk)  # served again, it is held again first
        self._forget_everyone(removed.resource)
        self.workers.pop(gvk).stop()
        namespaces, selector = removed.watched  # a decorator's, or every parent of the shard
        self.informers.remove_across(removed.resource, namespaces, label_selector=selector)
        self.informers.remove_across(
            removed.resource, self.options.namespaces, metadata_only=True, transform=as_sharder_keeps
        )
        return held

    def _serve(self, gvk: tuple[str, str], kind: kinds.Kind | None, broken: kinds.BrokenKind | None) -> bool:
        """Start or update the controller for a parent kind; False if its API is not there yet.  A
        decorator that selects anew is served by a new controller, watching what it selects now."""
        if kind is not None and kind.decorates is not None and self.options.shard:
            log.warning("a sharded engine does not serve decorators: %s is not served", kind.name)
            return True
        current = self.controllers.get(gvk)
        if current is not None and current.watched != decorating.watched(kind, self):
            self._retire(gvk)
            current = None
        if current is not None:
            if current.kind != kind or current.broken != broken:
                current.replace(kind, broken)
            return True
        try:
            resource = self.kube.resource(*gvk)
        except errors.NotFound:
            log.warning("no API resource for %s %s yet (is its CRD installed?); will retry", *gvk)
            return False  # a kind whose hub moved there is served at the old one meanwhile
        moved = claimants.moved_hub(list(self.controllers), gvk)
        if moved is not None:  # its controller at the old hub finishes its reconciles first
            log.info("kind for %s reads its parents at %s now, not %s", gvk[1], gvk[0], moved[0])
            self.workers[moved].stop()
            if not self.workers[moved].drain(time.monotonic() + MOVE_GRACE):
                log.warning("kind for %s: reconciles at %s still running", gvk[1], moved[0])
        name, metrics = kind.name if kind else broken.name if broken else gvk[1], self.options.metrics
        queue = WorkQueue(
            clock=self.options.clock.monotonic, observer=metrics.workqueue(name) if metrics else None
        )
        controller = KindController(self, name, kind, broken, resource, queue)
        self.controllers[gvk] = self._routes[_group_kind(*gvk)] = controller
        worker = self.workers[gvk] = Worker(
            name, controller, queue, self.options.workers, metrics=metrics, tracer=self.options.tracer
        )
        if moved is not None and self._retire(moved):  # its hold is the new one's: one claim for both
            self._held.add(gvk)
        if metrics:
            metrics.readiness(name, controller.reports.readiness)
        if self.options.shard and metrics:
            metrics.shard_holds(name, lambda: len(controller.parents.versions()))
        if self._run_workers and self._admits(gvk):
            worker.start()
        self.on_new_kind()
        return True

    def _settle(self, kind: kinds.Kind) -> bool:
        """Record the folder as a revision of the kind and tell its controller; False if the server
        could not be asked (the next pass tries again)."""
        try:
            lineage = self.revisions.settle(kind)
            rollout = self.controllers[(kind.api_version, kind.kind)].rollout
            rollout.update(lineage, self.revisions.rollout(kind.name))
            self._prune((kind.api_version, kind.kind))
        except errors.ApiError as exc:
            log.warning("kind %s: its revisions could not be read or written: %s", kind.name, exc)
            return False
        self._watch_rollouts()
        return True

    def _prune(self, gvk: tuple[str, str]) -> None:
        """Delete the kind's revisions that no parent records and no rollout moves between.

        What the parents record is read from their cache once it is filled: a cache still being
        filled (an engine just started) misses the parents on an old revision not listed yet, so
        until then the kind waits in ``_unpruned`` for a later tick.  A sharded replica caches
        its own share of the parents only: before it deletes a revision, it fills a cache of
        every parent that keeps each one's record alone (``rollout.record_only``; a streamed
        list, one parent at a time), and drops that cache once read."""
        self._unpruned.add(gvk)
        controller = self.controllers[gvk]
        rollout = controller.rollout
        if not rollout.parents.has_synced:
            return
        in_use = rollout.in_use()
        if self.options.shard and self.revisions.unneeded(controller.name, in_use):
            everyone = self.informers.ensure_across(
                controller.resource, self.options.namespaces, transform=rollout_core.record_only
            )
            if not everyone.has_synced:
                return
            recorded = (everyone.get(ns or None, name) or {} for ns, name, _ in everyone.versions())
            in_use |= {n for n in (rollout_core.revision_of(p) for p in recorded) if n is not None}
            self._forget_everyone(controller.resource)
        self.revisions.prune(controller.name, in_use)
        self._unpruned.discard(gvk)

    def _forget_everyone(self, resource: Resource) -> None:
        """Drop a sharded replica's cache of every parent of a kind (``_prune``), if it has one."""
        if self.options.shard:
            self.informers.remove_across(resource, self.options.namespaces)

    def _watch_rollouts(self) -> None:
        """Follow the KindRollouts (``stencil rollout resume|undo`` edit them) once they are kept."""
        if self.revisions.rollouts is not None and self._rollouts is None:
            self._rollouts = self.informers.ensure(self.revisions.rollouts, on_event=self._rollout_changed)

    def _rollout_changed(self, type_: str, obj: Obj, old: Obj | None) -> None:
        if type_ == DELETED:
            return
        for controller in list(self.controllers.values()):
            if controller.name != obj["metadata"]["name"]:
                continue
            if old is not None and _hand(old) == _hand(obj):
                controller.rollout.observe(obj)  # a status write: the other replicas' shares
            else:
                controller.rollout.spec_changed(obj)

    def tick(self) -> None:
        """Prune the revisions that waited for a filled cache (``_prune``); move the kinds'
        rollouts on (``rollouts.Rollout.tick``), only on the replica that reconciles."""
        for gvk in [g for g in self._unpruned if g in self.controllers]:
            try:
                self._prune(gvk)
            except errors.ApiError as exc:
                log.warning("kind %s: its revisions could not be pruned: %s", gvk[1], exc)
        if not self._run_workers:
            return
        now = self.options.clock.wall()
        for gvk, controller in list(self.controllers.items()):
            if not self._admits(gvk):
                continue  # another engine holds the kind, and moves its rollout
            try:
                controller.rollout.tick(now, members=self.shard_members)
            except errors.ApiError as exc:
                log.warning("kind %s: rollout step failed: %s", controller.name, exc)

    @property
    def parent_selector(self) -> str | None:
        """The label selector of the parents this engine caches: its shard's, or every parent."""
        return sharding.selector(self.options.shard) if self.options.shard else None

    def run_workers(self) -> None:
        """Start reconciling (this replica became the leader): every kind, or with
        ``held_kinds_only`` the kinds this engine holds."""
        self._run_workers = True
        for gvk, worker in list(self.workers.items()):
            if self._admits(gvk):
                worker.start()

    def serve_kind(self, gvk: tuple[str, str]) -> None:
        """This engine holds the kind ``gvk`` now (``serving.holding``): reconcile its parents
        once the workers run."""
        self._held.add(gvk)
        worker = self.workers.get(gvk)
        if self._run_workers and worker is not None:
            worker.start()

    def _admits(self, gvk: tuple[str, str]) -> bool:
        """Whether the kind's workers may run: always, or once this engine holds it."""
        return not self.options.held_kinds_only or gvk in self._held

    # -- children -------------------------------------------------------------

    def _wake(self, uid: str, kind: claimants.GroupKind | None) -> None:
        """Queue the parent with this uid: of the kind an owner reference names (``kind``), else
        (a child or related object that names its parent by a label) of whichever kind it is."""
        if kind is not None:
            routed = self._routes.get(kind)
            controllers = [routed] if routed is not None else []
        else:
            controllers = list(self.controllers.values())
        for controller in controllers:
            for namespace, name in controller.parents.keys_by_index(UID_INDEX, uid):
                controller.wakes.add(Key(namespace, name))

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
                if self.bundles is not None:
                    self.bundles.watch()
                self.load()
                self.tick()
            except Exception as exc:
                log.warning(
                    "loading kinds failed: %s", exc, exc_info=not isinstance(exc, errors.StencilError)
                )
            if self._stop.wait(self.options.reload_interval):
                return

    def synced(self) -> bool:
        """True once every kind is served and every cache holds its first listing."""
        return (
            self._loaded.is_set()
            and all(c.parents.has_synced for c in list(self.controllers.values()))
            and self.children.synced()
        )

    def stop(self, grace: float = 20.0) -> bool:
        """Stop taking work, let the reconciles under way finish (up to ``grace`` seconds), then
        stop the caches.  False if some reconcile was still running when the grace ran out."""
        self._stop.set()
        workers = list(self.workers.values())
        for worker in workers:
            worker.stop()
        deadline = time.monotonic() + grace
        drained = all([worker.drain(deadline) for worker in workers])
        if not drained:
            log.warning("stopping with reconciles still running after %.0f s", grace)
        self.recorder.close(max(deadline - time.monotonic(), 1.0))  # what the reconciles had to say
        self.informers.stop_all()
        self.children.referenced.stop()
        if self.bundles is not None:
            self.bundles.close()
        return drained


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


def _group_kind(api_version: str, kind: str) -> claimants.GroupKind:
    return apis.group_kind({"apiVersion": api_version, "kind": kind})


def _hand(obj: Obj) -> tuple[object, object]:
    """What an operator sets on a KindRollout: its spec and its annotations."""
    return obj.get("spec"), (obj.get("metadata") or {}).get("annotations")
