"""A parent's patches on the API server: fields of objects it does not own, as its own field manager.

``Patcher.converge`` brings what a parent's patch templates render (``door.Rendered.patches``) onto
the objects they name, and takes off what it set and no longer renders; ``Patcher.release`` takes
off everything when the parent is deleted.  The rules (placement, the manager's name, the record on
the parent, when a target already holds a patch) are ``engine.core.model.children.patches``; this module only
reads and writes.  Each target is read before it is written, so that nothing is sent while it holds
the patch already and nothing is created: an apply merges with what others wrote meanwhile, but one
that finds the object gone creates it (the server ignores a resourceVersion on create), so an object
whose uid is not the one read is deleted again at once.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from engine.core.decisions.plans import ownership
from engine.core.model import errors, kinds
from engine.core.model.children import patches, placement
from engine.core.model.identity import ChildId
from engine.core.model.objects import Obj
from engine.core.templating import rendering
from engine.runtime.cluster.informers import Across
from engine.runtime.cluster.kube import Resource
from engine.runtime.cluster.seam import Api

log = logging.getLogger("stencil.patching")


class Patcher:
    """The patches of one kind's parents, written as ``writer`` (the engine or the kind's account);
    the record on each parent as the ``engine``."""

    def __init__(
        self, kind: kinds.Kind | None, engine: Api, writer: Api, resource: Resource, parents: Across
    ) -> None:
        self.kind = kind
        self.engine = engine  # writes the parent's record, as it writes the parent's finalizer
        self.writer = writer
        self.resource = resource  # the parents'
        self.parents = parents

    def converge(self, parent: Obj, wanted: Sequence[rendering.Located]) -> Obj:
        """Apply each of ``wanted`` that its target does not hold, then remove what the parent set and
        no longer renders; the parent as it is now.  A missing target or a field another writer holds
        is raised (``PatchTargetMissing``, ``PatchConflict``) at the template's line."""
        if self.kind is not None and self.kind.decorates is not None:
            return self._decorate(self.kind, parent, wanted)
        recorded = patches.record(parent)
        if self.kind is None or (not wanted and not recorded):
            return parent
        manager = patches.manager(self.kind.name, parent)
        desired = {patches.key(one.child): (one, patches.digest(one.child)) for one in wanted}
        # Recorded before it is written: "" for a target whose apply may be under way.
        pending = {**recorded, **{k: d if recorded.get(k) == d else "" for k, (_, d) in desired.items()}}
        parent = self._record(parent, pending)
        for k, (one, digest) in desired.items():
            self._apply(self.kind, one, manager, same=recorded.get(k) == digest)
            pending[k] = digest
        for k in sorted(set(recorded) - set(desired)):
            self._remove(self.kind, parent, k, manager)
            del pending[k]
        return self._record(parent, pending)

    def release(self, parent: Obj) -> Obj:
        """Take off every field the parent's patches set (it is being deleted); the parent as it is now."""
        recorded = patches.record(parent)
        if self.kind is None or not recorded:  # a broken kind cannot say what its parents may patch
            return parent
        manager = patches.manager(self.kind.name, parent)
        for k in sorted(recorded):
            self._remove(self.kind, parent, k, manager)
        return self._record(parent, {})

    # -- a decorator's: the object it decorates, its labels and annotations alone --------

    def _decorate(self, kind: kinds.Kind, obj: Obj, wanted: Sequence[rendering.Located]) -> Obj:
        """Apply the patch of the decorated object ``obj`` unless it holds it; no record is kept on the
        object: what the patch manager holds there, as the cache keeps it, says what to take off."""
        manager = patches.manager(kind.name, obj)
        patch, mine = wanted[0].child if wanted else None, patches.fields_of(obj, manager)
        holds = patch is None or (mine is not None and not ownership.taken(mine, patch))
        if holds and patches.held(mine) == patches.named(patch):
            return obj
        self._set(obj, patch or _nothing(obj), manager)
        return obj

    def undecorate(self, obj: Obj, *, cached: bool) -> None:
        """Take off what the decorator's patch set on ``obj``, no longer decorated (as last cached: read
        again unless it is still in the cache)."""
        manager = patches.manager(self.kind.name, obj) if self.kind is not None else ""
        if not manager or patches.fields_of(obj, manager) is None:
            return  # nothing of it is the decorator's
        if not cached:
            meta = obj["metadata"]
            found = self.writer.get(self.resource, meta["name"], meta.get("namespace"))
            if found is None or found["metadata"].get("uid") != meta.get("uid"):
                return
            obj = found
        self._set(obj, _nothing(obj), manager)

    def _set(self, obj: Obj, patch: Obj, manager: str) -> None:
        written = self.writer.apply(patch, force=False, manager=manager)
        self._undo_creation(self.resource, obj, written, ChildId.of(obj))
        self.parents.observe(written)

    # -- one target ---------------------------------------------------------------

    def _apply(self, kind: kinds.Kind, one: rendering.Located, manager: str, *, same: bool) -> None:
        patch, target_id = one.child, ChildId.of(one.child)
        file, line = one.where(("metadata", "name"))
        resource = self.writer.resource(patch["apiVersion"], patch["kind"])
        meta = patch["metadata"]
        target = self.writer.get(resource, meta["name"], meta.get("namespace"))
        if target is None:
            raise patches.PatchTargetMissing(
                f"{target_id} does not exist: a patch never creates the object it names, it waits for it",
                file=file,
                line=line,
            )
        mine = patches.fields_of(target, manager)  # what the server says the parent still holds there
        if same and mine is not None and not ownership.taken(mine, patch):
            return
        try:
            written = self.writer.apply(patch, force=False, manager=manager)
        except errors.Conflict as exc:
            held = [c for c in (exc.body.get("details") or {}).get("causes") or () if _by_another(c)]
            if not held:
                raise
            fields = "; ".join(str(c.get("message") or c.get("field")) for c in held)
            raise patches.PatchConflict(
                f"{target_id}: another writer holds what the patch sets ({fields}); a patch never takes "
                "a field by force",
                file=file,
                line=line,
            ) from exc
        self._undo_creation(resource, target, written, target_id)
        log.info("patched", extra={"kind": kind.name, "target": str(target_id), "manager": manager})

    def _remove(self, kind: kinds.Kind, parent: Obj, entry: str, manager: str) -> None:
        """Take the parent's fields off the target a record entry names, if it lies within the parent's
        reach (a record is the tenant's to edit) and still exists."""
        named = patches.target_of(entry)
        if named is None or not self._placeable(kind, parent, named):
            log.warning("a patch record names what the parent may not patch", extra={"entry": entry})
            return
        meta = named["metadata"]
        try:
            resource = self.writer.resource(named["apiVersion"], named["kind"])
            target = self.writer.get(resource, meta["name"], meta.get("namespace"))
        except errors.ApiError as exc:  # a kind no longer served, or no longer the kind's to read
            if exc.status not in (403, 404):
                raise
            log.warning("a patched object can no longer be read: %s", exc, extra={"entry": entry})
            return
        if target is None:
            return
        if patches.fields_of(target, manager) is None:
            return  # nothing of it is the parent's
        written = self.writer.apply(named, force=False, manager=manager)  # sets nothing: what it set goes
        self._undo_creation(resource, target, written, ChildId.of(named))

    def _placeable(self, kind: kinds.Kind, parent: Obj, named: Obj) -> bool:
        """Whether the parent's patch templates could name ``named`` (its place and its kind)."""
        owner, file = placement.Owner.of(kind, parent), str(kind.directory / kinds.KIND_FILE)
        may = rendering.allowed_patch_kinds(kind)
        try:
            patches.place(named, owner, kind, self.writer.is_namespaced, file, may)
        except errors.StencilError:
            return False
        return True

    def _undo_creation(self, resource: Resource, target: Obj, written: Obj, target_id: ChildId) -> None:
        """An apply creates an object that is gone; one made between the read and the write is deleted."""
        if written["metadata"].get("uid") == target["metadata"].get("uid"):
            return
        meta = written["metadata"]
        self.writer.delete(resource, meta["name"], meta.get("namespace"), uid=meta["uid"])
        raise patches.PatchTargetMissing(f"{target_id} was deleted while it was patched")

    def _record(self, parent: Obj, entries: dict[str, str]) -> Obj:
        ops = patches.record_patch(parent, entries)
        if ops is None:
            return parent
        meta = parent["metadata"]
        written = self.engine.patch_json(self.resource, meta["name"], meta.get("namespace"), ops)
        self.parents.observe(written)
        return written


def _by_another(cause: dict[str, object]) -> bool:
    return cause.get("reason") == "FieldManagerConflict"


def _nothing(obj: Obj) -> Obj:
    """A patch of ``obj`` that sets nothing: applied, what its manager held comes off."""
    meta = obj["metadata"]
    named = {"name": meta["name"], **({"namespace": meta["namespace"]} if meta.get("namespace") else {})}
    return {"apiVersion": obj.get("apiVersion"), "kind": obj.get("kind"), "metadata": named}
