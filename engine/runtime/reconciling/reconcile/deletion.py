"""A parent's end: the finalizer, the clean-up it allows, and the ``deleteWhen`` rule.

Children in the parent's namespace go with it through owner references.  Those beyond their
reach (another namespace, cluster-scoped), and those their template orphans (``Orphan``, which
carry no owner reference), are created only under Stencil's finalizer (``Deletion.hold``), so
that once the parent is being deleted the engine can delete the former itself and let the
latter go (``Deletion.clean_up``), and then let the parent go; a kind that patches objects it
does not own holds the finalizer too, to take its fields off them first (``patching``).  And a
kind may say when a parent's work is done (``deleteWhen``): after its status is written,
``Deletion.when_done`` deletes the parent if the rule holds.  This is the reconcile's deletion.go,
as kro keeps it beside its instance controller.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.core.decisions import conditions, rules, status
from engine.core.decisions.plans import lifecycles, planning
from engine.core.model import kinds
from engine.core.model.children import placement
from engine.core.model.objects import Obj, uid_of
from engine.core.model.sources import lifecycle
from engine.runtime.cluster.informers import Across
from engine.runtime.cluster.kube import Resource
from engine.runtime.reconciling import events
from engine.runtime.reconciling.host import Host
from engine.runtime.reconciling.reconcile.applying import Applier
from engine.runtime.reconciling.reconcile.patching import Patcher
from engine.runtime.reconciling.requeuing import Result

TEARDOWN_RECHECK = 1.0  # seconds between looks at the stage an ordered teardown waits for


class Deletion:
    """The finalizer and the deletions of one kind's parents."""

    def __init__(self, host: Host, resource: Resource, parents: Across) -> None:
        self.host = host
        self.resource = resource
        self.parents = parents

    def hold(self, parent: Obj, desired: Sequence[Obj], kind: kinds.Kind | None) -> Obj:
        """The parent under Stencil's finalizer if some desired child lies beyond owner
        references' reach, or its kind tears children down in order; the parent as it is now."""
        if kind is not None and kind.decorates is not None:  # never on an object it decorates
            return parent
        if not planning.needs_finalizer(desired) and (kind is None or not _holds(kind)):
            return parent
        return self._set_finalizer(parent, hold=True)

    def clean_up(
        self, parent: Obj, kind: kinds.Kind | None, applier: Applier, reach: planning.Reach, patcher: Patcher
    ) -> Result:
        """A parent being deleted: delete the children garbage collection cannot (or, in an
        ordered teardown, every child a stage at a time), then let it go.

        They are found by listing, not from the cache, since a child in another namespace
        may lie outside what this engine watches; a rare request on a rare event.
        """
        if planning.FINALIZER not in (parent["metadata"].get("finalizers") or ()):
            return Result()
        parent = patcher.release(parent)  # what its patches set on objects it does not own goes first
        uid = uid_of(parent)
        listed = []
        for resource in self.host.children.resources(kind):
            children, _ = self.host.kube.list(resource, label_selector=f"{placement.PARENT_UID_LABEL}={uid}")
            listed += [
                {"apiVersion": resource.api_version, "kind": resource.kind, **child} for child in children
            ]
        if kind is not None and kind.teardown is not None:
            return self._tear_down(parent, kind.teardown, applier, planning.owned(listed, uid, reach))
        for child in planning.label_owned(listed, uid, reach):
            if lifecycle.of(child).deletion == lifecycle.ORPHAN:  # let go, never deleted
                applier.release(planning.release_of(child, uid))
            else:
                applier.prune(planning.prune_of(child))
        self._set_finalizer(parent, hold=False)
        return Result()

    def _tear_down(
        self, parent: Obj, teardown: lifecycle.Teardown, applier: Applier, children: Sequence[Obj]
    ) -> Result:
        """One step of an ordered teardown (``lifecycles.teardown_step``): the parent goes once its
        children have, or once the kind's timeout has passed; until then it is looked at again."""
        since = parent["metadata"].get("deletionTimestamp")
        step = lifecycles.teardown_step(
            children, since, conditions.timestamp(self.host.options.clock.wall()), teardown.timeout
        )
        uid = uid_of(parent)
        for child in step.releases:
            applier.release(planning.release_of(child, uid))
        for child in step.deletes:
            applier.prune(planning.prune_of(child), why="torn down in order")
        if step.timed_out:
            said = f"after {teardown.timeout:.0f} s, deleted what was left at once: {_named(children)}"
            self.host.recorder.emit(parent, events.WARNING, "TeardownTimedOut", said)
        if step.done:
            self._set_finalizer(parent, hold=False)
            return Result()
        if step.deletes:
            said = f"waiting for {_named(step.waiting)} to go before the children made before them"
            self.host.recorder.emit(parent, events.NORMAL, "TearingDown", said)
        return Result(requeue_after=TEARDOWN_RECHECK)

    def when_done(
        self,
        kind: kinds.Kind,
        parent: Obj,
        new_status: Mapping[str, Any],
        observed: Sequence[Obj],
        related: Sequence[Obj],
        now: str,
        outcome: status.Outcome,
    ) -> bool:
        """Delete the parent if the kind's ``deleteWhen`` rule holds with its new status (reading
        what the status rules read of ``outcome``); whether this call deleted it."""
        read = rules.Read(observed, related, now, outcome.origins, outcome.references)
        if not rules.should_delete(kind, parent, new_status, read):
            return False
        meta = parent["metadata"]
        if not self.host.kube.delete(self.resource, meta["name"], meta.get("namespace"), uid=meta["uid"]):
            return False
        message = f"Deleted {parent['kind']} {meta['name']}: its deleteWhen rule holds"
        self.host.recorder.emit(parent, events.NORMAL, "Completed", message)
        return True

    def _set_finalizer(self, parent: Obj, *, hold: bool) -> Obj:
        """Add or remove Stencil's finalizer (a compare-and-swap JSON patch); the parent as it is now."""
        ops = planning.finalizer_patch(parent, hold=hold)
        if ops is None:
            return parent
        meta = parent["metadata"]
        written = self.host.kube.patch_json(self.resource, meta["name"], meta.get("namespace"), ops)
        self.parents.observe(written)
        return written


def _holds(kind: kinds.Kind) -> bool:
    """Whether the kind's parents are deleted under the finalizer whatever their children: an ordered
    teardown, or patches of objects it does not own to take off."""
    return kind.teardown is not None or any(template.patch for template in kind.templates)


def _named(children: Sequence[Obj]) -> str:
    """The children as an event says them: ``ConfigMap app, Deployment web`` (at most five)."""
    names = [f"{c['kind']} {c['metadata']['name']}" for c in children]
    return ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
