"""The floor: the fewest requests that converge a workload, sent as fast as the API server takes them.

A Stencil figure means little alone on a shared machine; next to the fastest this API
server can converge the same workload, measured in the same run, it says how much the
engine costs.  The floor is that fastest client.  It issues exactly the requests Stencil
needs and nothing else:

- one list and watch of the parents, and one of each child kind (what any controller must
  keep to see its parents and their children's readiness);
- per parent, the kind's rendered children (``rendering.render``, the engine's own), each
  created by a create-only server-side apply with Stencil's field manager and content hash,
  as the engine creates them;
- per parent, one status write, once every child is ready: the same status Stencil would
  write then (``status.derive_status``), so the parent reads ``Ready=True``.

No events, no intermediate status, no retries beyond what a conflict needs, ``workers``
parents at a time over the kept-alive connections of ``engine.runtime.cluster.kube.Kube``.  It runs
as a process of its own, like the engine and kro, so its memory and CPU are measured the
same way:

    python -m bench.floor --kubeconfig K --kind templates/network --namespace NS [--workers 4]

It prints ``ready`` on stdout once its caches are synced, and runs until SIGTERM.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
import traceback
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from engine.core.decisions import status
from engine.core.decisions.plans import ordering, planning
from engine.core.model import errors, kinds
from engine.core.model.children import placement
from engine.core.model.identity import ChildId
from engine.core.offline import rbac
from engine.core.templating import rendering
from engine.runtime.cluster.kube import Kube
from engine.runtime.cluster.watching import Informer
from engine.runtime.reconciling.caches.children import owner_index

Obj = dict[str, Any]
OWNER = "owner"
UID = "uid"
SYNC_TIMEOUT = 60.0


class Floor:
    """Creates each parent's children once and writes its status once, when all are ready."""

    def __init__(self, kube: Kube, kind: kinds.Kind, namespace: str, workers: int) -> None:
        self.kube = kube
        self.kind = kind
        self.namespace = namespace
        self.pool = ThreadPoolExecutor(workers, thread_name_prefix="floor")
        self.lock = threading.Lock()
        self.created: set[str] = set()  # parent uids whose children were applied
        self.finished: set[str] = set()  # parent uids whose status was written
        self.parents = Informer(
            kube, kube.resource(kind.api_version, kind.kind), namespace=namespace, on_event=self._on_parent
        )
        self.parents.add_index(UID, lambda parent: [parent["metadata"]["uid"]])
        managed = f"{placement.MANAGED_BY_LABEL}={placement.MANAGED_BY_VALUE}"
        self.children = [
            Informer(
                kube,
                kube.resource(api_version, child_kind),
                namespace=namespace,
                label_selector=managed,
                on_event=self._on_child,
            )
            for api_version, child_kind in child_kinds(kind)
        ]
        for informer in self.children:
            informer.add_index(OWNER, owner_index)

    def start(self) -> bool:
        for informer in (*self.children, self.parents):
            informer.start()
        return all(informer.wait_for_sync(SYNC_TIMEOUT) for informer in (*self.children, self.parents))

    def stop(self) -> None:
        for informer in (self.parents, *self.children):
            informer.stop()
        self.pool.shutdown(wait=True, cancel_futures=True)

    def _on_parent(self, type_: str, parent: Obj, old: Obj | None) -> None:
        uid = parent["metadata"]["uid"]
        with self.lock:
            if type_ == "DELETED" or uid in self.created:
                return
            self.created.add(uid)
            if ready(parent.get("status") or {}):
                self.finished.add(uid)  # converged before a restart: nothing to send
                return
        self._submit(self._create, parent)

    def _on_child(self, type_: str, child: Obj, old: Obj | None) -> None:
        for uid in owner_index(child):
            with self.lock:
                if uid in self.finished:
                    continue
            self._submit(self._finish, uid)

    def _submit(self, task: Callable[[Any], None], argument: Any) -> None:
        """Run ``task`` on the pool; a failure is printed, since nobody waits for the future."""

        def logged() -> None:
            try:
                task(argument)
            except Exception:
                traceback.print_exc()

        self.pool.submit(logged)

    def _create(self, parent: Obj) -> None:
        for child in rendering.render(self.kind, parent, [], is_namespaced=self.kube.is_namespaced):
            try:
                created = self.kube.apply(planning.with_hash(child), create_only=True)
            except errors.AlreadyExists:
                continue
            self._observe(created)
        self._finish(parent["metadata"]["uid"])

    def _observe(self, child: Obj) -> None:
        for informer in self.children:
            if (informer.resource.api_version, informer.resource.kind) == (
                child["apiVersion"],
                child["kind"],
            ):
                informer.observe(child)

    def _finish(self, uid: str) -> None:
        """Write the status once, if the children make the parent Ready now."""
        parent = next(iter(self.parents.by_index(UID, uid)), None)
        if parent is None:
            return
        observed = [child for informer in self.children for child in informer.by_index(OWNER, uid)]
        located = rendering.render_located(self.kind, parent, observed, is_namespaced=self.kube.is_namespaced)
        rendered = [(child.template, child.child) for child in located]
        refs = tuple(ChildId.of(c) for _, c in rendered)
        outcome = status.Outcome(desired=refs, origins=ordering.origins(rendered))
        now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        new = status.derive_status(self.kind, parent, observed, outcome, now)
        if not ready(new):
            return
        with self.lock:
            if uid in self.finished:
                return
            self.finished.add(uid)
        ops = status.status_patch(parent, new)
        if ops is None:
            return
        meta = parent["metadata"]
        resource = self.parents.resource
        try:
            self.kube.patch_status(resource, meta["name"], meta.get("namespace"), ops)
        except errors.Conflict:
            # The parent changed since it was read: read it again and write once more.
            current = self.kube.get(resource, meta["name"], meta.get("namespace"))
            if current is not None:
                self.parents.observe(current)
            with self.lock:
                self.finished.discard(uid)
            self._finish(uid)


def ready(status_: Obj) -> bool:
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in status_.get("conditions", []))


def child_kinds(kind: kinds.Kind) -> list[tuple[str, str]]:
    """The (apiVersion, kind) of the children the kind's examples render."""
    return sorted(rbac.child_kinds(kind))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.floor", description=__doc__.split("\n\n")[0])
    parser.add_argument("--kubeconfig", required=True)
    parser.add_argument("--kind", required=True, type=Path, help="the kind folder")
    parser.add_argument("--namespace", required=True)
    parser.add_argument("--workers", type=int, default=4)
    args = parser.parse_args(argv)
    stopping = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopping.set())
    signal.signal(signal.SIGINT, lambda *_: stopping.set())
    floor = Floor(
        Kube.from_kubeconfig(args.kubeconfig), kinds.load_kind(args.kind), args.namespace, args.workers
    )
    if not floor.start():
        print("the floor's caches did not sync", file=sys.stderr)
        return 1
    print("ready", flush=True)
    stopping.wait()
    floor.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
