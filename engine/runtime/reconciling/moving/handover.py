"""Both ends of a shard hand-over, as one controller sees them: letting a parent go, and taking one in.

- **Letting go.**  The reconcile of a parent the sharder marked draining runs from the worker
  that holds the parent's key, so no reconcile of it is under way.  Instead of reconciling,
  it relabels the parent's children for the replica it drains towards, then removes the
  parent's owner and drain labels, recording how many children it handed over
  (``engine.core.decisions.coordination.sharding.release_patch``).  The releasing side relabels because it
  is the only one that can: its cache holds every child of the parent, and it still owns the
  parent, so no other replica writes them meanwhile; the new owner can neither write before
  it is assigned nor see the children in its cache, which selects its own label, after.
- **Taking in.**  A parent can reach the new owner's cache before its children do (two watches
  are never ordered).  A missing child would look like one to create, and a child no longer
  rendered would not be pruned, so the reconcile waits (``arriving``) until the cache holds as
  many of the parent's children as were handed over; each arriving child wakes the parent.
  Counting is a dictionary lookup per child kind, so the check costs nothing once they are
  in.  When the record names another replica (the sharder gave the parent elsewhere, or the
  owner died holding it, or it was reconciled before sharding), or the children have not come
  within ``ARRIVAL_PATIENCE``, the owner reads them from the server by their parent-uid label,
  relabels those that are not its own, once (again after a restart, writing nothing then).

The sharder that marks parents is ``engine.runtime.serving.sharding``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from engine.core.decisions.coordination import sharding
from engine.core.model import errors, kinds
from engine.core.model.children import placement
from engine.core.model.identity import ChildId
from engine.core.model.objects import Obj, key_of, uid_of
from engine.runtime.cluster.informers import Across
from engine.runtime.cluster.kube import Resource
from engine.runtime.cluster.seam import Api
from engine.runtime.reconciling.caches import children
from engine.runtime.reconciling.requeuing import Result

if TYPE_CHECKING:
    from engine.runtime.reconciling.host import Host
    from engine.runtime.telemetry.observability import Metrics

log = logging.getLogger("stencil.sharding")

ARRIVAL_WAIT = 1.0  # how soon a parent whose children are on their way looks again (they also wake it)
ARRIVAL_PATIENCE = 10.0  # how long it waits for them before reading them from the server


class Handover:
    """One kind's parents moving in and out of this replica; unsharded, every parent is its own."""

    def __init__(
        self,
        host: Host,
        controller: str,
        resource: Resource,
        parents: Across,
        writer: Callable[[], Api],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.host, self.controller, self.resource, self.parents = host, controller, resource, parents
        self._writer, self._clock = writer, clock
        self._arrived: dict[str, str] = {}  # parent uid -> the hand-over record its children matched
        self._since: dict[str, float] = {}  # parent uid -> when it was first found waiting
        self._handed: dict[str, set[ChildId]] = {}  # parent uid -> children relabelled, until released
        # The children a dead owner left, listed once for all the parents it left (by parent uid,
        # as stubs), and when: its parents reach this replica in one pass of the sharder.
        self._left: dict[tuple[str, Resource, str | None], tuple[float, dict[str, list[Obj]]]] = {}

    def ours(self, parent: Obj) -> bool:
        """Whether this replica reconciles the parent: unsharded, or sharded and its owner.  One
        marked draining is handed over instead (``release``)."""
        identity = self.host.options.shard
        if identity is None:
            return True
        held = sharding.holding(parent, identity)
        if held is sharding.Holding.RELEASE:
            self._let_go(parent, identity)
        return held is sharding.Holding.OWNS

    def forget(self, uid: str) -> None:
        """The parent left this replica's cache."""
        self._arrived.pop(uid, None)
        self._since.pop(uid, None)
        self._handed.pop(uid, None)

    def _let_go(self, parent: Obj, identity: str) -> None:
        """Relabel every cached child for the replica the parent drains towards, then release it.
        A refusal stops before the release; the next try counts the children relabelled before."""
        to = sharding.labels_of(parent).get(sharding.DRAIN_LABEL)
        if to is None or sharding.release_patch(parent, identity) is None:
            return
        members = self.host.shard_members
        forged = sharding.forged_drain(parent, identity, members() if members is not None else frozenset())
        if forged is not None:  # one write, and the parent stays: no child is relabelled for it
            self._unmark(parent, forged, to)
            return
        uid, writer = uid_of(parent), self._writer()
        handed = self._handed.setdefault(uid, set())
        for child in self.host.children.of(uid):
            if ChildId.of(child) in handed or sharding.labels_of(child).get(sharding.OWNER_LABEL) == to:
                handed.add(ChildId.of(child))
                continue
            if _relabel(writer, child, to) is not None:
                handed.add(ChildId.of(child))
        release(
            self.host.kube,
            self.parents,
            self.resource,
            parent,
            identity,
            controller=self.controller,
            metrics=self.host.options.metrics,
            children=len(handed),
        )
        self.forget(uid)

    def _unmark(self, parent: Obj, ops: list[dict[str, object]], to: str) -> None:
        meta = parent["metadata"]
        try:
            written = self.host.kube.patch_json(self.resource, meta["name"], meta.get("namespace"), ops)
            self.parents.observe(written)
        except (errors.Invalid, errors.NotFound, errors.Conflict):
            return  # the labels changed meanwhile, or it is gone: judged again at its next event
        log.warning(
            "a drain mark the sharder did not make was taken off",
            extra={"kind": self.controller, "key": str(key_of(parent)), "towards": to},
        )

    def arriving(self, parent: Obj, kind: kinds.Kind | None) -> Result | None:
        """None once every child handed over with the parent is in this replica's cache; else
        what the queue does meanwhile.  Unsharded, or nothing handed over: None at once."""
        identity = self.host.options.shard
        record = (parent["metadata"].get("annotations") or {}).get(sharding.HANDED_OVER)
        if identity is None or record is None:
            return None
        uid = uid_of(parent)
        if self._arrived.get(uid) == record:
            return None
        expected = sharding.arrival(parent, identity)
        if expected is None:  # handed to another replica, or by one that died: they will not come
            self._adopt(parent, identity, kind)
            return None
        if self.host.children.count(uid) >= expected:
            self._arrived[uid] = record
            self._since.pop(uid, None)
            return None
        if self._clock() - self._since.setdefault(uid, self._clock()) < ARRIVAL_PATIENCE:
            log.info(
                "waiting for its children to reach the cache",
                extra={"kind": self.controller, "key": str(key_of(parent)), "expected": expected},
            )
            return Result(requeue_after=ARRIVAL_WAIT)
        self._adopt(parent, identity, kind)
        return None

    def _adopt(self, parent: Obj, identity: str, kind: kinds.Kind | None) -> None:
        """Read the parent's children from the server, relabel those not labelled with this
        replica, and cache them.  Nothing is written to the parent: after a restart they are read
        again (and, all labelled by then, not written)."""
        meta, writer = parent["metadata"], self._writer()
        record = (meta.get("annotations") or {}).get(sharding.HANDED_OVER, "")
        count, watched = 0, self.host.options.namespaces or (None,)
        for resource in self.host.children.resources(kind):
            for namespace in {n if resource.namespaced else None for n in watched}:
                for child in self._children_of(meta["uid"], record, resource, namespace):
                    mine = sharding.labels_of(child).get(sharding.OWNER_LABEL) == identity
                    labelled = child if mine else _relabel(writer, child, identity)
                    if labelled is not None:
                        self.host.children.remember(labelled)
                        count += 1
        self._arrived[meta["uid"]] = record
        self._since.pop(meta["uid"], None)
        log.info(
            "adopted children", extra={"kind": self.controller, "key": str(key_of(parent)), "children": count}
        )

    def _children_of(self, uid: str, record: str, resource: Resource, namespace: str | None) -> list[Obj]:
        """The parent's children of ``resource`` as the server has them.  Those of a dead owner
        (``record`` names it) come from one listing of all it left, kept ``ARRIVAL_PATIENCE``."""
        writer, now = self._writer(), self._clock()
        if not record or "/" in record:
            selector = f"{children.MANAGED_SELECTOR},{placement.PARENT_UID_LABEL}={uid}"
            return [
                c for page, _ in writer.pages(resource, namespace, selector) for c in page if _of(c) == uid
            ]
        self._left = {key: at for key, at in self._left.items() if now - at[0] < ARRIVAL_PATIENCE}
        if (record, resource, namespace) not in self._left:
            by_parent: dict[str, list[Obj]] = {}
            selector = f"{children.MANAGED_SELECTOR},{sharding.OWNER_LABEL}={record}"
            for page, _ in writer.pages(resource, namespace, selector):
                for child in page:
                    by_parent.setdefault(_of(child), []).append(_stub(child))
            self._left[(record, resource, namespace)] = (now, by_parent)
        return self._left[(record, resource, namespace)][1].pop(uid, [])


def _of(child: Obj) -> str:
    """The uid of the parent a child belongs to, as the caches index it."""
    return next(iter(children.owner_index(child)), "")


def _stub(child: Obj) -> Obj:
    """What a relabel needs of a child: a listing of many is not kept whole."""
    meta = child["metadata"]
    kept = {key: meta[key] for key in ("name", "namespace", "uid", "labels") if key in meta}
    return {"apiVersion": child["apiVersion"], "kind": child["kind"], "metadata": kept}


def _relabel(writer: Api, child: Obj, to: str) -> Obj | None:
    """Label the child with the replica ``to``; None if it is gone or another object took its name."""
    meta = child["metadata"]
    resource = writer.resource(child["apiVersion"], child["kind"])
    ops = sharding.relabel_patch(child, to)
    try:
        return writer.patch_json(resource, meta["name"], meta.get("namespace"), ops)
    except (errors.NotFound, errors.Invalid):
        return None


def release(
    kube: Api,
    parents: Across,
    resource: Resource,
    parent: Obj,
    identity: str,
    *,
    controller: str,
    metrics: Metrics | None = None,
    children: int = 0,
) -> None:
    """Hand a parent marked draining over: remove its owner and drain labels, if it is still ours,
    recording the ``children`` relabelled for the next owner.

    The answer goes into the cache, so a reconcile queued meanwhile reads that the parent is no
    longer this replica's; the watch then drops it from the cache (it leaves the selector).
    """
    ops = sharding.release_patch(parent, identity, children)
    if ops is None:
        return
    meta, sent = parent["metadata"], time.time()
    try:
        written = kube.patch_json(resource, meta["name"], meta.get("namespace"), ops)
    except (errors.Invalid, errors.NotFound, errors.Conflict):
        return  # no longer ours, or gone: nothing to hand over
    parents.observe(written)
    if metrics is not None:
        metrics.shard_released(controller)
    log.info(
        "released parent",
        extra={
            "kind": controller,
            "key": str(key_of(parent)),
            "to": sharding.labels_of(parent).get(sharding.DRAIN_LABEL),
            "children": children,
            "sent": round(sent, 3),  # the wall time it was sent, before any other replica could see it
        },
    )
