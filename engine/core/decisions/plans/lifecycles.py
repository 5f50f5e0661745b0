"""What a child's lifecycle (``engine.core.model.sources.lifecycle``) changes in a plan: pure, per child.

- ``applyOnce`` fields are the engine's when a child is created and others' after: the hash that
  says whether a child is current is taken over the child without them (``without``), so another
  writer's change to one is no drift; an update carries what the server holds there (``carrying``),
  so the engine never removes nor puts back a value it gave away, and no such field is ever
  reported as restored (``handed``).

Which children are pruned, kept or let go is ``planning.plan``'s; the patch that lets one go is
``release_patch``, and whether a child counts as up for a rolling recreate ``available``.

A parent of a kind with an ordered teardown goes in steps (``teardown_step``): its orphans are
let go, then its children are deleted a stage at a time, the last made first, each stage waited
for until gone; past the kind's timeout, whatever is left goes at once.

A kind reconciled on a period (``reconcileEvery``) wakes each parent at its own phase of the period
(``next_wake``), a hash of its key, so ten thousand parents made at once are spread over the
period instead of waking together, and a parent woken by an event keeps its phase.
"""

from __future__ import annotations

import copy
import datetime
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.core.decisions import health
from engine.core.decisions.plans import contention
from engine.core.model.children.placement import (
    KIND_LABEL,
    MANAGED_BY_LABEL,
    PARENT_NAME_LABEL,
    PARENT_NAMESPACE_LABEL,
    PARENT_UID_LABEL,
)
from engine.core.model.objects import Key, Obj
from engine.core.model.sources import lifecycle


def without(obj: Obj, paths: Sequence[lifecycle.Path]) -> Obj:
    """``obj`` with nothing at ``paths`` (field paths of mappings; one it does not hold is left alone)."""
    if not paths:
        return obj
    found = copy.deepcopy(obj)
    for path in paths:
        holder = contention.value_at(found, path[:-1])
        if isinstance(holder, dict):
            holder.pop(path[-1], None)
    return found


def carrying(obj: Obj, current: Mapping[str, Any], paths: Sequence[lifecycle.Path]) -> Obj:
    """``obj`` holding at each of ``paths`` what ``current`` (the server's object) holds there."""
    if not paths:
        return obj
    found = copy.deepcopy(obj)
    for path in paths:
        value = contention.value_at(current, path)
        if value is None:
            continue  # no one holds it: not made up
        holder: Any = found
        for step in path[:-1]:
            holder = holder.setdefault(step, {}) if isinstance(holder, dict) else None
        if isinstance(holder, dict):
            holder[path[-1]] = copy.deepcopy(value)
    return found


def handed(path: contention.Path, obj: Mapping[str, Any]) -> bool:
    """Whether ``path`` lies at or under a field ``obj``'s lifecycle hands to other writers."""
    return any(path[: len(given)] == given for given in lifecycle.of(obj).paths)


def next_wake(key: Key, period: float, now: float) -> float:
    """Seconds from ``now`` until ``key``'s next turn of ``period``: the next time, after now, that
    is its phase (a hash of the key as said, ``namespace/name``, uniform over the period) plus a
    whole number of periods."""
    phase = int.from_bytes(hashlib.sha256(str(key).encode()).digest()[:8], "big") / 2**64 * period
    return period - (now - phase) % period


def available(current: Obj | None) -> bool:
    """Whether a child counts as up for a RollingRecreate: there, not going, and Current."""
    if current is None or (current.get("metadata") or {}).get("deletionTimestamp"):
        return False
    return health.assess(current).status == health.CURRENT


# What ties a child to its parent, which letting it go takes off.
_TIES = (MANAGED_BY_LABEL, KIND_LABEL, PARENT_NAME_LABEL, PARENT_NAMESPACE_LABEL, PARENT_UID_LABEL)
_STENCILS = (*lifecycle.ANNOTATIONS, PARENT_NAME_LABEL)


def release_patch(obj: Mapping[str, Any], parent_uid: str, hashed: str) -> list[dict[str, Any]]:
    """The JSON patch that lets ``obj`` go from the parent ``parent_uid``: its uid tested, then
    Stencil's labels and annotations and the parent's owner reference removed, so that no later
    prune, nor any other parent, finds it; ``hashed``, the annotation of the applied hash, too."""
    meta = obj.get("metadata") or {}
    ops: list[dict[str, Any]] = [{"op": "test", "path": "/metadata/uid", "value": meta.get("uid")}]
    for index, owner in reversed(list(enumerate(meta.get("ownerReferences") or ()))):
        if owner.get("uid") == parent_uid:
            at = f"/metadata/ownerReferences/{index}"
            ops += [{"op": "test", "path": f"{at}/uid", "value": parent_uid}, {"op": "remove", "path": at}]
    for field, keys in (("labels", _TIES), ("annotations", (*_STENCILS, hashed))):
        present = meta.get(field) or {}
        ops += [{"op": "remove", "path": f"/metadata/{field}/{_pointer(k)}"} for k in keys if k in present]
    return ops


def _pointer(key: str) -> str:
    """A key as one step of a JSON pointer (RFC 6901)."""
    return key.replace("~", "~0").replace("/", "~1")


@dataclass(frozen=True)
class TeardownStep:
    """What one look at a deleted parent's remaining children does in an ordered teardown."""

    deletes: tuple[Obj, ...] = ()  # children to delete now
    releases: tuple[Obj, ...] = ()  # orphans to let go now
    waiting: tuple[Obj, ...] = ()  # the stage being torn down: gone before the next begins
    done: bool = False  # nothing left to wait for: the parent may go
    timed_out: bool = False


def teardown_step(children: Sequence[Obj], since: str | None, now: str, timeout: float) -> TeardownStep:
    """The next step for the parent's remaining ``children`` (owned, as listed), its deletion begun
    at ``since`` (RFC 3339) and ``now``: orphans let go; then the highest stage still there deleted
    (those not already going) and waited for; past ``timeout`` seconds, every child at once."""
    releases = tuple(c for c in children if lifecycle.of(c).deletion == lifecycle.ORPHAN)
    rest = [c for c in children if lifecycle.of(c).deletion != lifecycle.ORPHAN]
    if not rest:
        return TeardownStep(releases=releases, done=True)
    if since is not None and _seconds(now) - _seconds(since) > timeout:
        return TeardownStep(tuple(c for c in rest if not _going(c)), releases, done=True, timed_out=True)
    top = max(_stage(c) for c in rest)
    stage = tuple(c for c in rest if _stage(c) == top)
    return TeardownStep(tuple(c for c in stage if not _going(c)), releases, waiting=stage)


def _stage(obj: Mapping[str, Any]) -> int:
    """The child's teardown stage; one made before the kind's teardown was ordered goes last."""
    given = str(((obj.get("metadata") or {}).get("annotations") or {}).get(lifecycle.TEARDOWN_ANNOTATION, ""))
    return int(given) if given.isdigit() else -1


def _going(obj: Mapping[str, Any]) -> bool:
    return bool((obj.get("metadata") or {}).get("deletionTimestamp"))


def _seconds(timestamp: str) -> float:
    return datetime.datetime.fromisoformat(timestamp.replace("Z", "+00:00")).timestamp()
