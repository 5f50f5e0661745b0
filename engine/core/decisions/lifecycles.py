"""What a child's lifecycle (``engine.core.model.lifecycle``) changes in a plan: pure, per child.

- ``applyOnce`` fields are the engine's when a child is created and others' after: the hash that
  says whether a child is current is taken over the child without them (``without``), so another
  writer's change to one is no drift; an update carries what the server holds there (``carrying``),
  so the engine never removes nor puts back a value it gave away, and no such field is ever
  reported as restored (``handed``).

Which children are pruned, kept or let go is ``planning.plan``'s, and the patch that lets one go
``planning.release_patch``.

A kind reconciled on a period (``reconcileEvery``) wakes each parent at its own phase of the period
(``next_wake``), a hash of its key, so ten thousand parents made at once are spread over the
period instead of waking together, and a parent woken by an event keeps its phase.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from engine.core.decisions import contention
from engine.core.model import lifecycle

Obj = dict[str, Any]


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


def next_wake(key: str, period: float, now: float) -> float:
    """Seconds from ``now`` until ``key``'s next turn of ``period``: the next time, after now, that
    is its phase (a hash of the key, uniform over the period) plus a whole number of periods."""
    phase = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big") / 2**64 * period
    return period - (now - phase) % period
