"""Decide, without I/O, what to send to the API server: which children to apply and which to prune.

``plan(desired, observed, parent_uid)`` compares the rendered children with the
children observed in the cache and returns a ``Plan``.  Two rules keep Stencil
quiet and safe:

* **Zero writes in steady state.**  Every applied child carries the hash of what
  was applied (``HASH_ANNOTATION``).  A child is left alone when the cached copy
  carries the hash of the current desired object *and* the engine's field manager
  still holds every rendered field (``ownership.taken``: so a hand edit of a
  rendered field is caught, and what the server normalizes, drops or adds is not
  mistaken for one).  The hash is what notices a field the template stopped
  rendering, or a value it renders differently.  An object with no ``managedFields``
  (read from a file) is compared by value instead (``contains``).
* **Never take over, never over-delete.**  An observed object whose controller
  is not this parent is a conflict, not an apply; only children controlled by
  this parent are pruned, each with its uid as a delete precondition.
* **A child's lifecycle is its own.**  A child its template makes ``createOnly`` is never
  updated; one no longer rendered is pruned, kept (``Retain``, ``createOnly``) or let go
  (``Orphan``: ``releases``, ``lifecycles.release_patch``) as the lifecycle it carries says; fields it
  hands to other writers (``applyOnce``) are left out of its hash and carried as the server
  holds them (``engine.core.decisions.plans.lifecycles``).
* **Namespaces are a boundary.**  A parent's children and related objects lie only
  within its ``Reach``: its own namespace, those its kind's placement names, and
  cluster scope if the kind may make cluster-scoped children.  Anything else,
  whatever its labels or owner references say (a tenant can label its own objects
  with another tenant's parent uid), is not read into the parent's status, not
  taken for a dependency and never pruned; and a conflict message names no other
  parent's uid, nor a parent in another namespace.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from engine.core.decisions.plans import contention, lifecycles, ownership
from engine.core.model.children.placement import (
    KIND_LABEL,
    PARENT_NAME_LABEL,
    PARENT_NAMESPACE_LABEL,
    PARENT_UID_LABEL,
)
from engine.core.model.identity import ChildId
from engine.core.model.objects import Obj
from engine.core.model.sources import lifecycle

HASH_ANNOTATION = "stencil.dev/applied-hash"
# Held on a parent while it has children that owner references cannot clean up (in another
# namespace, or cluster-scoped): the engine deletes those itself before letting the parent go.
FINALIZER = "stencil.dev/cleanup"


@dataclass(frozen=True)
class Conflict:
    """A child whose name an object this parent does not control holds: ``why`` says how, and
    ``str()`` says it all once, for a condition and an event."""

    child: ChildId
    why: str  # "already exists with no controller", "was replaced by an object ...", ...

    def __str__(self) -> str:
        return f"{self.child} {self.why}"


@dataclass(frozen=True)
class Reach:
    """Where a parent's children and related objects may lie (see the module docstring)."""

    namespace: str  # the parent's ("" for a cluster-scoped parent)
    namespaces: tuple[str, ...] = ()  # placement.namespaces: others children may name; "*": any
    cluster_scoped: bool = False  # placement.clusterScoped

    def covers(self, obj: Obj) -> bool:
        namespace = obj.get("metadata", {}).get("namespace") or ""
        if not namespace:
            return self.cluster_scoped
        return namespace == self.namespace or "*" in self.namespaces or namespace in self.namespaces


def within(objects: Iterable[Obj], reach: Reach) -> list[Obj]:
    """The objects that lie in ``reach``; the others are nobody's business here."""
    return [obj for obj in objects if reach.covers(obj)]


def owned(objects: Iterable[Obj], parent_uid: str, reach: Reach) -> list[Obj]:
    """The objects truly this parent's: in its reach and controlled by it, an owner reference
    counting only where Kubernetes honours one (the parent's namespace, or any for a
    cluster-scoped parent)."""
    return [obj for obj in objects if _owns(obj, parent_uid, reach)]


def _owns(obj: Obj, parent_uid: str, reach: Reach) -> bool:
    if not reach.covers(obj) or not controlled_by(obj, parent_uid):
        return False
    namespace = obj.get("metadata", {}).get("namespace") or ""
    return controller_uid(obj) is None or not reach.namespace or namespace == reach.namespace


def controlled_by(obj: Obj, parent_uid: str) -> bool:
    """Whether ``parent_uid`` controls ``obj``: by owner reference, or, for children
    that cannot carry one (another namespace, cluster-scoped), by label alone."""
    owner = controller_uid(obj)
    if owner is not None:
        return owner == parent_uid
    labels = obj.get("metadata", {}).get("labels") or {}
    return bool(labels.get(PARENT_UID_LABEL) == parent_uid)


def controller_uid(obj: Obj) -> str | None:
    for owner in obj.get("metadata", {}).get("ownerReferences") or ():
        if owner.get("controller"):
            return str(owner.get("uid"))
    return None


def content_hash(obj: Obj) -> str:
    """A stable hash of an object's content, ignoring our own hash annotation."""
    meta = dict(obj.get("metadata", {}))
    annotations = {k: v for k, v in (meta.get("annotations") or {}).items() if k != HASH_ANNOTATION}
    meta["annotations"] = annotations
    content = {**obj, "metadata": meta}
    try:
        canonical = orjson.dumps(content, option=orjson.OPT_SORT_KEYS)
    except TypeError:
        # Keys that are not strings (a template's {1: 'a', 'b': 2}), or an integer beyond 64 bits:
        # the API server gets every key as the string JSON writes for it, so hash those strings.
        text = json.dumps(json.loads(json.dumps(content)), sort_keys=True, separators=(",", ":"))
        canonical = text.encode()
    return hashlib.sha256(canonical).hexdigest()[:32]


def with_hash(obj: Obj) -> Obj:
    """``obj`` with the hash annotation set, ready to apply: the hash of what the engine keeps of
    it, without the fields it hands to other writers (``applyOnce``)."""
    meta = dict(obj["metadata"])
    kept = lifecycles.without(obj, lifecycle.of(obj).paths)
    meta["annotations"] = {**(meta.get("annotations") or {}), HASH_ANNOTATION: content_hash(kept)}
    return {**obj, "metadata": meta}


def contains(observed: Any, desired: Any) -> bool:
    """True when every value in ``desired`` is present and equal in ``observed``.

    Mappings may hold more keys on the server (defaults, other managers' fields);
    lists must match item by item, since a rendered list is owned whole.
    """
    if isinstance(desired, dict):
        return isinstance(observed, dict) and all(
            k in observed and contains(observed[k], v) for k, v in desired.items()
        )
    if isinstance(desired, list):
        return (
            isinstance(observed, list)
            and len(observed) == len(desired)
            and all(contains(o, d) for o, d in zip(observed, desired, strict=True))
        )
    if isinstance(desired, bool) or isinstance(observed, bool):
        return desired is observed
    return bool(observed == desired)


def converged(current: Obj, target: Obj) -> bool:
    """Whether ``current`` already holds what applying ``target`` (hash included) would make it:
    the same hash, and every rendered field still held by the engine (see the module docstring)."""
    fields = ownership.applied(current)
    if fields is None:
        return contains(current, target)
    return _hash_of(current) == _hash_of(target) and not ownership.taken(fields, target)


def restores(current: Obj, target: Obj) -> list[contention.Path]:
    """The rendered fields an update of ``current`` to ``target`` puts back: those another writer
    took from the engine (by value, for an object with no ``managedFields``).  Not the content
    hash, which is the engine's own and follows the others."""
    fields = ownership.applied(current)
    if fields is None:
        found = contention.differences(current, target)
    else:
        found = iter(ownership.taken(fields, target))
    return [path for path in found if path != _HASH_PATH and not lifecycles.handed(path, target)]


_HASH_PATH = ("metadata", "annotations", HASH_ANNOTATION)


def _hash_of(obj: Obj) -> Any:
    return ((obj.get("metadata") or {}).get("annotations") or {}).get(HASH_ANNOTATION)


def _project(observed: Any, desired: Any) -> Any:
    """The part of ``observed`` that has ``desired``'s shape."""
    if isinstance(desired, dict) and isinstance(observed, dict):
        return {k: _project(observed[k], v) for k, v in desired.items() if k in observed}
    if isinstance(desired, list) and isinstance(observed, list):
        return [_project(o, d) for o, d in zip(observed, desired, strict=False)] + observed[len(desired) :]
    return observed


def drift(observed: Obj, desired: Obj) -> list[str]:
    """Fields of the rendered object whose values ``observed`` does not hold, as ``spec.replicas``
    paths: what an update of a child changes, for its event, its log line and ``stencil diff``."""
    meta_free = {k: v for k, v in desired.items() if k != "metadata"}
    return changed_fields(_project(observed, meta_free), meta_free)


def changed_fields(before: Any, after: Any) -> list[str]:
    """The paths at which two objects differ (``spec.template.spec.containers[0].image``)."""
    # Loaded on the first drift, not by every process that plans: deepdiff brings numpy and
    # pydantic along, 30 MiB that a converged engine never needs.
    from deepdiff import DeepDiff

    paths = DeepDiff(before, after, ignore_order=False).affected_paths
    return sorted({_dotted(str(path)) for path in paths})


def _dotted(path: str) -> str:
    """DeepDiff's ``root['spec']['ports'][0]`` as ``spec.ports[0]``."""
    dotted = re.sub(r"\['((?:[^'\\]|\\.)*)'\]", lambda m: "." + m.group(1), path.removeprefix("root"))
    return dotted.removeprefix(".")


@dataclass(frozen=True)
class Apply:
    obj: Obj  # what to send, hash annotation included
    create: bool  # not seen in the cache: created, so that a name held by another is not taken
    current: Obj | None = None  # the cached child it updates
    adopt: bool = False  # ``current`` is no one's, and the template takes it over (``adoptable``)


@dataclass(frozen=True)
class Prune:
    api_version: str
    kind: str
    namespace: str
    name: str
    uid: str

    @property
    def child(self) -> ChildId:
        return ChildId.at(self.api_version, self.kind, self.namespace, self.name)


@dataclass(frozen=True)
class Release:
    """A child no longer rendered that its lifecycle says to let go (``Orphan``), not delete."""

    prune: Prune
    patch: tuple[dict[str, Any], ...]  # ``lifecycles.release_patch``

    @property
    def child(self) -> ChildId:
        return self.prune.child


@dataclass(frozen=True)
class Plan:
    applies: tuple[Apply, ...] = ()
    prunes: tuple[Prune, ...] = ()
    unchanged: tuple[ChildId, ...] = ()
    conflicts: tuple[Conflict, ...] = ()  # children whose name another controller holds
    releases: tuple[Release, ...] = ()  # children no longer rendered that are let go
    kept: tuple[ChildId, ...] = ()  # children no longer rendered that their lifecycle keeps
    # Of the children of each RollingRecreate collection (by template), those missing, going or not
    # Current: what counts against its maxUnavailable (``recreations``).
    unavailable: frozenset[tuple[str, ChildId]] = frozenset()

    @property
    def empty(self) -> bool:
        return not (self.applies or self.prunes or self.releases)


def plan(desired: Sequence[Obj], observed: Sequence[Obj], parent_uid: str, reach: Reach) -> Plan:
    """What to apply and what to prune to turn ``observed`` into ``desired``.

    ``observed`` holds the cached children that may belong to this parent
    (labelled for it, or with the names of desired children); only those in ``reach``
    are looked at.
    """
    observed = within(observed, reach)
    by_ref = {ChildId.of(o): o for o in observed}
    applies: list[Apply] = []
    unchanged: list[ChildId] = []
    conflicts: list[Conflict] = []
    unavailable: set[tuple[str, ChildId]] = set()
    for child in desired:
        r = ChildId.of(child)
        current = by_ref.get(r)
        life = lifecycle.of(child)
        if life.update == lifecycle.ROLLING_RECREATE and not lifecycles.available(current):
            unavailable.add((life.collection, r))
        if current is None:
            applies.append(Apply(with_hash(child), create=True))
            continue
        if (current.get("metadata") or {}).get("deletionTimestamp"):
            continue  # going: waited for, and created again once gone (its deletion wakes the parent)
        if not _owns(current, parent_uid, reach):
            if adoptable(child, current):
                applies.append(Apply(with_hash(child), create=False, current=current, adopt=True))
            else:
                conflicts.append(Conflict(r, f"already exists {_held(current, reach)}"))
            continue
        target = with_hash(lifecycles.without(child, life.paths))
        if life.create_only or converged(current, target):
            unchanged.append(r)
        else:
            sent = lifecycles.carrying(target, current, life.paths)  # what others keep, as they keep it
            applies.append(Apply(sent, create=False, current=current))
    wanted = {ChildId.of(c) for c in desired}
    prunes, releases, kept = [], [], []
    for o in observed:
        if ChildId.of(o) in wanted or not _owns(o, parent_uid, reach):
            continue
        life = lifecycle.of(o)
        if life.create_only or life.deletion == lifecycle.RETAIN:
            kept.append(ChildId.of(o))
        elif life.deletion == lifecycle.ORPHAN:
            releases.append(release_of(o, parent_uid))
        else:
            prunes.append(prune_of(o))
    return Plan(
        tuple(applies),
        tuple(prunes),
        tuple(unchanged),
        tuple(conflicts),
        tuple(releases),
        tuple(kept),
        frozenset(unavailable),
    )


def recreations(plan: Plan, refused: Sequence[Apply]) -> list[Apply]:
    """Which of the ``refused`` updates (the server refused them as invalid, and their template
    recreates) to delete now: every ``Recreate`` child, and of each ``RollingRecreate``
    collection the last items first, while fewer than its ``maxUnavailable`` are down."""
    if not refused:  # every apply of a reconcile asks
        return []
    order = {ChildId.of(apply.obj): index for index, apply in enumerate(plan.applies)}
    chosen, down = [], {}
    for apply in sorted(refused, key=lambda a: -order.get(ChildId.of(a.obj), 0)):
        life = lifecycle.of(apply.obj)
        if life.update == lifecycle.RECREATE:
            chosen.append(apply)
        elif life.update == lifecycle.ROLLING_RECREATE:
            group = life.collection
            if group not in down:
                down[group] = sum(1 for of, _ in plan.unavailable if of == group)
            if down[group] < life.max_unavailable:
                down[group] += 1
                chosen.append(apply)
    return chosen


def adoptable(child: Obj, current: Obj) -> bool:
    """Whether ``current``, the object at ``child``'s name that this parent does not control, may
    be taken over: ``child``'s template says ``adopt``, no controller holds it, and no parent by
    Stencil's labels (another parent's child in another namespace, say).  It lies where ``child``
    is placed, so within the parent's reach."""
    labels = (current.get("metadata") or {}).get("labels") or {}
    return lifecycle.of(child).adopt and controller_uid(current) is None and PARENT_UID_LABEL not in labels


def prune_of(obj: Obj) -> Prune:
    """The deletion of ``obj``, by its uid."""
    meta = obj["metadata"]
    return Prune(obj["apiVersion"], obj["kind"], meta.get("namespace") or "", meta["name"], meta["uid"])


def release_of(obj: Obj, parent_uid: str) -> Release:
    """Letting ``obj`` go from the parent ``parent_uid`` (``lifecycles.release_patch``), by its uid."""
    return Release(prune_of(obj), tuple(lifecycles.release_patch(obj, parent_uid, HASH_ANNOTATION)))


def _held(obj: Obj, reach: Reach) -> str:
    """Who holds ``obj``, which is not this parent's: a controller, another parent by labels, or
    none.  Named only when it is in the parent's own namespace, never by uid: a tenant learns
    nothing here about another namespace."""
    meta = obj.get("metadata", {})
    here = (meta.get("namespace") or "") == reach.namespace
    for owner in meta.get("ownerReferences") or ():
        if owner.get("controller"):
            return (
                f"and is controlled by {owner.get('kind')} {owner.get('name')}"
                if here
                else "with another controller"
            )
    labels = meta.get("labels") or {}
    if labels.get(PARENT_UID_LABEL) is None:
        return "with no controller"
    namespace = labels.get(PARENT_NAMESPACE_LABEL)
    if not namespace or namespace != reach.namespace:
        return "and belongs by its labels to another Stencil parent, in another namespace"
    # A long parent name is labelled in a bounded form, and written in full in an annotation.
    name = (meta.get("annotations") or {}).get(PARENT_NAME_LABEL) or labels.get(PARENT_NAME_LABEL)
    return f"and belongs by its labels to another Stencil parent: {name} of kind {labels.get(KIND_LABEL)}"


def label_owned(observed: Sequence[Obj], parent_uid: str, reach: Reach) -> list[Obj]:
    """Children of this parent that carry no owner reference: garbage collection will not
    remove them with the parent, so the engine must (only those in its reach)."""
    return [o for o in owned(observed, parent_uid, reach) if controller_uid(o) is None]


def needs_finalizer(desired: Sequence[Obj]) -> bool:
    """Whether any desired child will be tied to its parent by labels alone."""
    return any(controller_uid(child) is None for child in desired)


def finalizer_patch(parent: Obj, *, hold: bool) -> list[dict[str, Any]] | None:
    """A JSON patch adding (``hold``) or removing Stencil's finalizer; None if nothing changes.

    The ``test`` of the resourceVersion makes it a compare-and-swap: a parent changed
    in between (another finalizer added, say) fails the patch instead of being overwritten.
    """
    meta = parent["metadata"]
    current = list(meta.get("finalizers") or ())
    wanted = (
        [*current, FINALIZER]
        if hold and FINALIZER not in current
        else ([f for f in current if f != FINALIZER] if not hold else current)
    )
    if wanted == current:
        return None
    return [
        {"op": "test", "path": "/metadata/resourceVersion", "value": meta["resourceVersion"]},
        {"op": "add", "path": "/metadata/finalizers", "value": wanted},
    ]
