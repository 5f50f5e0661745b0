"""The owner's side of a shard hand-over: releasing a parent the sharder marked draining.

Called by the reconcile of a parent marked draining, from the worker that holds the
parent's key, so no reconcile of it is under way: it removes the owner and drain labels and
so hands the parent over (``engine.core.decisions.sharding.release_patch``).  The sharder
that marks parents is ``engine.runtime.serving.sharding``.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from engine.core.decisions import sharding
from engine.core.model import errors
from engine.runtime.cluster.informers import Across
from engine.runtime.cluster.kube import Obj, Resource
from engine.runtime.cluster.seam import Api

if TYPE_CHECKING:
    from engine.runtime.reconciling.host import Host
    from engine.runtime.telemetry.observability import Metrics

log = logging.getLogger("stencil.sharding")


def ours(host: Host, parents: Across, resource: Resource, parent: Obj, controller: str) -> bool:
    """Whether this replica reconciles the parent: unsharded, or sharded and its owner.  One
    marked draining is handed over instead (``release``), from the worker that holds its key,
    so no reconcile of it is under way."""
    identity, metrics = host.options.shard, host.options.metrics
    if identity is None:
        return True
    held = sharding.holding(parent, identity)
    if held is sharding.Holding.RELEASE:
        release(host.kube, parents, resource, parent, identity, controller=controller, metrics=metrics)
    return held is sharding.Holding.OWNS


def release(
    kube: Api,
    parents: Across,
    resource: Resource,
    parent: Obj,
    identity: str,
    *,
    controller: str,
    metrics: Metrics | None = None,
) -> None:
    """Hand a parent marked draining over: remove its owner and drain labels, if it is still ours.

    The answer goes into the cache, so a reconcile queued meanwhile reads that the parent is no
    longer this replica's; the watch then drops it from the cache (it leaves the selector).
    """
    ops = sharding.release_patch(parent, identity)
    if ops is None:
        return
    meta = parent["metadata"]
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
            "key": f"{meta.get('namespace') or ''}/{meta['name']}",
            "to": sharding.labels_of(parent).get(sharding.DRAIN_LABEL),
        },
    )
