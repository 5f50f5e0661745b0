"""Writing one parent's children: create or server-side apply each, hold back what is contested, prune.

This is the hand of steps 5 and 6 of ``KindController.reconcile``.  Every child goes through
one field manager; a create claims its name atomically (create-only apply), and an update
carries the uid of the object it was planned against, so a name another parent took meanwhile
is never handed over.  A field that another writer keeps changing back is restored ever more
slowly (``engine.core.decisions.plans.contention``); the first hold names that writer in an event.

Each write answers with a value rather than filling lists: ``Write`` for one child (created,
updated with the contests it leaves, or its name held by another object) and ``Applied`` for
a plan (the conflicts, the contests, what it created, and the server's refusal that stopped
it, if one did), so the reconcile decides what follows from what it is given back.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from engine.core.decisions.coordination import sharding
from engine.core.decisions.plans import contention, planning, refusing
from engine.core.model import errors
from engine.core.model.identity import ChildId
from engine.core.model.objects import Obj, uid_of
from engine.core.model.sources import lifecycle
from engine.runtime.cluster.kube import FIELD_MANAGER
from engine.runtime.cluster.seam import Api
from engine.runtime.reconciling import events
from engine.runtime.reconciling.host import Host
from engine.runtime.telemetry import tracing


@dataclass(frozen=True)
class Write:
    """One child's write: it was created, or updated (with the fields contested now), or its
    name is held by an object the parent does not control (``conflict`` says so)."""

    created: bool = False
    conflict: planning.Conflict | None = None
    contests: tuple[contention.Contest, ...] = ()
    noop: bool = False  # nothing written: the object the name holds says it already


RECREATE_RECHECK = 1.0  # seconds: how soon a recreation waiting for its turn is looked at again


@dataclass(frozen=True)
class Applied:
    """A plan's applies: names held by others, fields contested, children created, and the
    server's refusal (``error``) that stopped the applies, if one did (``errors.Refused``: for
    good, its event sent)."""

    conflicts: Mapping[ChildId, planning.Conflict]
    contests: tuple[contention.Contest, ...] = ()
    created: tuple[Obj, ...] = ()
    error: errors.StencilError | None = None
    wrote: bool = False  # some child was created or updated
    # A recreation waits for its turn (``planning.recreations``): look again this soon, for the
    # creation of the one before may wake nobody (a ConfigMap is up at once, its event our own).
    again_in: float | None = None


class Applier:
    """Writes the children of one parent, as ``writer`` (the engine, or the kind's ServiceAccount)."""

    def __init__(
        self,
        host: Host,
        controller: str,
        writer: Api,
        parent: Obj,
        contests: contention.Contention,
        refusals: refusing.Refusals,
        clock: Callable[[], float],
    ) -> None:
        self.host = host
        self.controller = controller  # the kind's name, as counters and logs say it
        self.writer = writer
        self.parent = parent
        self.contention = contests
        self.refusals = refusals
        self.clock = clock

    def apply(self, plan: planning.Plan) -> Applied:
        """Apply every child the plan says is missing or drifted, in order, stopping at the first
        refusal of the server, or at a child the server refused before as it is rendered now
        (``refusing``: not sent again).  The event of the children created is left to
        ``announce`` (also sent here if something unforeseen stops the applies)."""
        conflicts = {conflict.child: conflict for conflict in plan.conflicts}
        contests: list[contention.Contest] = []
        created: list[Obj] = []
        recreate: list[planning.Apply] = []  # refused as invalid, and their template recreates
        uid, wrote = uid_of(self.parent), False
        try:
            for apply in plan.applies:
                meta = apply.obj["metadata"]
                about = _child(apply.obj["kind"], meta.get("namespace"), meta["name"])
                child, version = ChildId.of(apply.obj), _version(apply)
                if refused := self.refusals.held(uid, child, version, self.clock()):
                    return Applied(conflicts, tuple(contests), tuple(created), refused.error)
                with self.host.options.tracer.span("apply", create=apply.create, **about) as span:
                    if holding := self._held(apply):
                        contests.extend(holding)
                        span.set(noop=True, held=True)
                        continue
                    try:
                        write = self._write(apply)
                    except errors.ApiError as exc:
                        if not refusing.permanent(exc):
                            raise
                        if _recreates(apply, exc):
                            recreate.append(apply)
                            continue
                        refusal = self._refused(child, version, exc)
                        return Applied(conflicts, tuple(contests), tuple(created), refusal)
                    conflict = write.conflict is not None
                    span.set(noop=write.noop or conflict, conflict=conflict)
                self.refusals.accepted(uid, child)
                wrote = wrote or not (write.noop or write.conflict)
                contests.extend(write.contests)
                if write.created:
                    created.append(apply.obj)
                if write.conflict:
                    conflicts[write.conflict.child] = write.conflict
            now = planning.recreations(plan, recreate)  # the others wait for their turn
            for apply in now:
                wrote = self._recreate(apply) or wrote
        except errors.ApiError as exc:
            return Applied(conflicts, tuple(contests), tuple(created), exc)
        except Exception:
            self.announce(Applied(conflicts, created=tuple(created)))
            raise
        again_in = RECREATE_RECHECK if len(now) < len(recreate) else None
        return Applied(conflicts, tuple(contests), tuple(created), wrote=wrote, again_in=again_in)

    def _recreate(self, apply: planning.Apply) -> bool:
        """Delete a child the server will not update in place, for it to be created again once it
        is gone (its deletion wakes the parent); whether this call deleted it."""
        assert apply.current is not None
        prune = planning.prune_of({**apply.current, **{k: apply.obj[k] for k in ("apiVersion", "kind")}})
        res = self.writer.resource(prune.api_version, prune.kind)
        try:
            if not self.writer.delete(res, prune.name, prune.namespace or None, uid=prune.uid):
                return False
        except errors.Conflict:
            return False  # not the object the plan meant
        said = f"Deleted {prune.kind} {prune.name} to create it again: it cannot be updated in place"
        self.host.recorder.emit(self.parent, events.NORMAL, "Recreating", said)
        return True

    def announce(self, applied: Applied) -> None:
        """One event says what the applies created, however many."""
        if applied.created:
            self._emit_written("Created", list(applied.created))

    def _refused(self, child: ChildId, version: refusing.Version, exc: errors.ApiError) -> errors.Refused:
        """Record that the server refused ``child`` for good; the first refusal of an object is
        said in a Warning event (it is not sent again as it is)."""
        hold = self.refusals.refused(uid_of(self.parent), child, version, exc, self.clock())
        if hold.news:
            self.host.recorder.emit(self.parent, events.WARNING, hold.error.reason, str(hold.error))
        return hold.error

    def _held(self, apply: planning.Apply) -> list[contention.Contest]:
        """The contests that hold back this update: every field it would restore is one that
        another writer keeps changing back, still backing off.  A hold that is news names the
        other writer from the server's ``managedFields`` and says so in a Warning event."""
        if apply.current is None:
            return []
        uid, child = uid_of(self.parent), ChildId.of(apply.obj)
        held = self.contention.held(uid, child, planning.restores(apply.current, apply.obj), self.clock())
        if not held or all(c.announced for c in held):
            return held
        meta = apply.obj["metadata"]
        res = self.writer.resource(apply.obj["apiVersion"], apply.obj["kind"])
        now = self.writer.get(res, meta["name"], meta.get("namespace") or None) or {}
        announced = []
        for contest in held:
            managers = contention.other_managers(now, contest.path, FIELD_MANAGER)
            announced.append(self.contention.announce(uid, contest, managers))
            self.host.recorder.emit(self.parent, events.WARNING, "ContestedField", announced[-1].message)
        return announced

    def _write(self, apply: planning.Apply) -> Write:
        """Create or server-side apply one child; a conflict instead if the name is held by an
        object this parent does not control."""
        child = sharding.owned(apply.obj, self.host.options.shard)  # sharded: labelled with its owner
        if not apply.create:
            return self._update(child, apply.current, adopted=apply.adopt)
        # Claim the name atomically: of two parents rendering one name, only one create-only
        # apply succeeds; the other gets AlreadyExists and must not apply over the winner.
        try:
            with self.host.children.writing(child) as answered:  # its watch event wakes nobody
                answered(self.writer.apply(child, create_only=True))
        except errors.AlreadyExists:
            res = self.writer.resource(child["apiVersion"], child["kind"])
            existing = self.writer.get(res, child["metadata"]["name"], child["metadata"].get("namespace"))
            if existing is None:
                raise  # deleted again since: the next reconcile creates it
            self.host.children.remember(existing)
            if planning.adoptable(child, existing):
                return self._update(child, existing, adopted=True)
            if not planning.controlled_by(existing, uid_of(self.parent)):
                why = f"already exists and is not controlled by this {self.parent['kind']}"
                return Write(conflict=planning.Conflict(ChildId.of(child), why))
            if planning.converged(existing, child):
                return Write(noop=True)
            return self._update(child, existing)
        self.host.counts.applied(self.controller)
        return Write(created=True)

    def _update(self, child: Obj, current: Obj | None, *, adopted: bool = False) -> Write:
        """Server-side apply a child this parent controls, or ``adopted`` (taken over, the owner
        reference and every rendered field applied with force); what it restored is recorded, and
        the fields contested now come back.

        The uid of the object the plan was made against goes along as a precondition: if
        that object was deleted and its name taken by another parent's child in between,
        the server refuses instead of handing the name over.
        """
        body = child
        if current is not None:
            body = {**child, "metadata": {**child["metadata"], "uid": current["metadata"]["uid"]}}
        try:
            with self.host.children.writing(child) as answered:  # its watch event wakes nobody
                applied = self.writer.apply(body)
                answered(applied)
        except (errors.Conflict, errors.Invalid):
            # The server words a uid that does not match as a conflict when the object is
            # gone and as an immutable field when another took its name: look, then decide.
            res = self.writer.resource(child["apiVersion"], child["kind"])
            now = self.writer.get(res, child["metadata"]["name"], child["metadata"].get("namespace"))
            if now is None or current is None or now["metadata"]["uid"] == current["metadata"]["uid"]:
                raise  # gone (its deletion wakes this parent to create it again), or truly refused
            self.host.children.remember(now)
            if planning.controlled_by(now, uid_of(self.parent)):
                raise
            why = f"was replaced by an object this {self.parent['kind']} does not control"
            return Write(conflict=planning.Conflict(ChildId.of(child), why))
        self.host.counts.applied(self.controller)
        fields = planning.drift(current, child) if current is not None else []
        self._emit_written("Adopted" if adopted else "Updated", [child], fields)
        if current is None or adopted:  # what an adoption takes over is no contest
            return Write()
        restored = {path: contention.value_at(child, path) for path in planning.restores(current, child)}
        uid, ref = uid_of(self.parent), ChildId.of(child)
        return Write(contests=tuple(self.contention.restored(uid, ref, restored, self.clock())))

    def prune_all(self, plan: planning.Plan) -> None:
        """Delete the children ``plan`` prunes, and let go those it releases."""
        for prune in plan.prunes:
            self.prune(prune)
        for release in plan.releases:
            self.release(release)

    def release(self, release: planning.Release) -> None:
        """Let a child go (``Orphan``): take off what ties it to the parent, if it is still the
        object the plan meant (its uid), and leave it be."""
        prune = release.prune
        res = self.writer.resource(prune.api_version, prune.kind)
        try:
            self.writer.patch_json(res, prune.name, prune.namespace or None, list(release.patch))
        except (errors.NotFound, errors.Invalid):
            return  # gone, or the uid's test failed: not the object we meant
        said = f"Left {prune.kind} {prune.name} be: its deletionPolicy is Orphan"
        self.host.recorder.emit(self.parent, events.NORMAL, "Released", said)

    def prune(self, prune: planning.Prune, why: str = "no longer rendered") -> None:
        """Delete a child no longer rendered (or as ``why`` says), if it is still the object the plan
        meant (its uid)."""
        about = _child(prune.kind, prune.namespace, prune.name)
        with self.host.options.tracer.span("prune", **about) as span:
            span.set(noop=not self._delete(prune, why))

    def _delete(self, prune: planning.Prune, why: str) -> bool:
        """``prune``'s deletion; whether this call deleted it."""
        res = self.writer.resource(prune.api_version, prune.kind)
        try:
            if not self.writer.delete(res, prune.name, prune.namespace or None, uid=prune.uid):
                return False  # already gone
        except errors.Conflict:
            return False  # the uid precondition failed: that object is not the one we meant
        self.host.counts.pruned(self.controller)
        self.host.recorder.emit(
            self.parent, events.NORMAL, "Pruned", f"Deleted {prune.kind} {prune.name}: {why}"
        )
        return True

    def _emit_written(self, verb: str, written: list[Obj], fields: list[str] | None = None) -> None:
        """The event of writes; an update says which rendered fields it restored (at most five)."""
        message = f"{verb} " + ", ".join(str(ChildId.of(child)) for child in written)
        if fields:
            more = f" and {len(fields) - 5} more" if len(fields) > 5 else ""
            message += ": " + ", ".join(fields[:5]) + more
        self.host.recorder.emit(self.parent, events.NORMAL, verb, message)


def _recreates(apply: planning.Apply, refusal: errors.ApiError) -> bool:
    """Whether a refused update is one its template recreates: refused as invalid (an immutable
    field), and not ``InPlace``."""
    update = lifecycle.of(apply.obj).update
    return apply.current is not None and isinstance(refusal, errors.Invalid) and update != lifecycle.IN_PLACE


def _child(kind: str, namespace: str | None, name: str) -> dict[str, tracing.Attribute]:
    """A child as its spans name it."""
    return {"child_kind": kind, "child_namespace": namespace or "", "child_name": name}


def _version(apply: planning.Apply) -> refusing.Version:
    """What a refusal of ``apply`` is remembered by: the object sent (its hash) and the live one."""
    sent = str((apply.obj["metadata"].get("annotations") or {}).get(planning.HASH_ANNOTATION))
    return sent, apply.current["metadata"].get("uid") if apply.current is not None else None
