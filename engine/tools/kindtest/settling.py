"""Whether an example has settled: Ready held through a window, and nothing written in it (pure).

A parent can be Ready for a moment (the engine writes Ready, then a child it
rewrites makes it not Ready again, or it keeps applying a child it fights over),
so ``stencil test`` passes an example only when what it waits for holds through
a settling window: from the first look at which every parent holds it (Ready at
its current generation, or the expected status), for ``seconds``, at every look
in between; and the engine wrote nothing in that time.  The first and the last
look of the window list the children too, and are compared:

- a parent whose resourceVersion moved was written: only the engine writes a
  parent once the example is applied, so any move is the engine's (its status);
- a child is the engine's write when the engine's own entries of its managed
  fields moved (their time, or the fields and values they own: its own manager's,
  and a parent's patch manager's); a write by another controller (a Deployment's
  status) moves only the resourceVersion and is not the engine's; the objects a
  decorator selects are judged so too, as their own controllers write them;
- a child made, deleted, or made again (a new uid) in the window is a change too.

Each change is a sentence naming the object, and its fields where they differ.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.core.model.children import patches
from engine.core.model.identity import ChildId
from engine.core.model.objects import Obj
from engine.runtime.cluster.kube import FIELD_MANAGER
from engine.tools.kindtest.comparing import Difference, differences
from engine.tools.kindtest.golden import owned
from engine.tools.parents import ready_at_generation, why_not_ready

DEFAULT_SECONDS = 5.0  # a status write the engine holds back as progress (up to 2 s) lands within it
_SHOWN = 3  # fields named of one written object: enough to say what moved

Holds = Callable[[Obj], str | None]  # why a parent does not hold what is waited for; None when it does


class State(enum.Enum):
    SETTLING = "settling"  # in the window, nothing changed so far
    SETTLED = "settled"  # the window passed with nothing changed
    CHANGED = "changed"  # something changed in the window; the example fails


@dataclass(frozen=True)
class Observation:
    """One look at an example: its parents (None for one not found), and at the first and last
    look of the window its children too."""

    at: float  # seconds, on a clock that only goes forward
    parents: tuple[Obj | None, ...]
    children: tuple[Obj, ...] | None = None  # None: not listed at this look


@dataclass(frozen=True)
class Verdict:
    state: State
    problems: tuple[str, ...] = ()  # what changed, when the state is CHANGED


def ready(parent: Obj, why: Callable[[Obj], str] = why_not_ready) -> str | None:
    """Why the parent is not Ready at its current generation (``why`` says it), None when it is:
    Ready True and said of the current spec, and the status's ``observedGeneration`` (where it has
    one) too."""
    if not ready_at_generation(parent):
        return why(parent)
    generation = (parent.get("metadata") or {}).get("generation")
    observed = (parent.get("status") or {}).get("observedGeneration", generation)
    if observed != generation:
        return f"status.observedGeneration is {observed}, not the current generation {generation}"
    return None


def judge(
    looks: Sequence[Observation], seconds: float, holds: Holds = ready, *, decorated: bool = False
) -> Verdict:
    """The verdict on the looks at an example so far: the first is the look at which every
    parent first held, with its children; the window ends at the first look ``seconds`` after
    it that lists the children.  ``decorated``: the parents are objects a decorator selects, which
    their own controllers write too, so only the engine's entries moving is a write of the engine."""
    first, last = looks[0], looks[-1]
    for look in looks[1:]:
        for parent, before in zip(look.parents, first.parents, strict=True):
            why = "it was deleted" if parent is None else holds(parent)
            if why is not None:
                into = look.at - first.at
                said = f"{_who(before)}: {into:.1f}s into the {seconds:g}s settling window, {why}"
                return Verdict(State.CHANGED, (said,))
    if last.at - first.at < seconds or last.children is None or first.children is None:
        return Verdict(State.SETTLING)
    problems = [
        *(
            problem
            for before, after in zip(first.parents, last.parents, strict=True)
            if before is not None and after is not None
            for problem in (
                _children_written([before], [after]) if decorated else _parent_written(before, after)
            )
        ),
        *_children_written(first.children, last.children),
    ]
    return Verdict(State.CHANGED if problems else State.SETTLED, tuple(problems))


def _who(obj: Mapping[str, Any] | None) -> str:
    found = ChildId.of(obj or {})
    return f"{found.kind} {found.name}"


def _parent_written(before: Obj, after: Obj) -> list[str]:
    version = (before.get("metadata") or {}).get("resourceVersion")
    if (after.get("metadata") or {}).get("resourceVersion") == version:
        return []
    moved = differences(_content(before), _content(after))
    return [f"{_who(after)}: the engine wrote the parent in the settling window: {_fields(moved)}"]


def _content(parent: Obj) -> Obj:
    """A parent less what moves with every write of it."""
    meta = {
        k: v
        for k, v in (parent.get("metadata") or {}).items()
        if k not in ("resourceVersion", "managedFields")
    }
    return {**parent, "metadata": meta}


def _children_written(before: Sequence[Obj], after: Sequence[Obj]) -> list[str]:
    old = {ChildId.of(child): child for child in before}
    new = {ChildId.of(child): child for child in after}
    problems = []
    for key, child in new.items():
        who = f"{key.kind} {key.name}"
        was = old.get(key)
        if was is None:
            problems.append(f"{who}: the engine made it in the settling window")
        elif (was.get("metadata") or {}).get("uid") != (child.get("metadata") or {}).get("uid"):
            problems.append(f"{who}: deleted and made again in the settling window")
        elif _engines(was) != _engines(child):
            moved = differences(_owned_values(was), _owned_values(child))
            what = _fields(moved) if moved else f"applied again at {_times(child)}, with the same values"
            problems.append(f"{who}: the engine wrote it in the settling window: {what}")
    for key in old.keys() - new.keys():
        problems.append(f"{key.kind} {key.name}: deleted in the settling window")
    return problems


def _engine_entries(obj: Obj) -> list[Obj]:
    return [
        entry
        for entry in (obj.get("metadata") or {}).get("managedFields") or ()
        if entry.get("manager") == FIELD_MANAGER
        or str(entry.get("manager")).startswith(patches.MANAGER_PREFIX)
    ]


def _engines(obj: Obj) -> tuple[list[tuple[Any, ...]], Any]:
    """The engine's part of an object: its managed-fields entries (which write, when, what it
    owns) and the values they own.  A write the server takes as a no-op moves none of it; the
    entries' times are whole seconds, so the values are compared too."""
    entries = [
        (entry.get("operation"), entry.get("subresource"), entry.get("time"), entry.get("fieldsV1"))
        for entry in _engine_entries(obj)
    ]
    return entries, _owned_values(obj)


def _owned_values(obj: Obj) -> Any:
    """The values the engine's entries own (its apply's, and its status writes')."""
    fields: dict[str, Any] = {}
    for entry in _engine_entries(obj):
        fields = _merged(fields, entry.get("fieldsV1") or {})
    return owned(obj, fields) if fields else {}


def _merged(one: Mapping[str, Any], other: Mapping[str, Any]) -> dict[str, Any]:
    """Two ``fieldsV1`` sets as one."""
    merged = dict(one)
    for key, sub in other.items():
        mine = merged.get(key)
        merged[key] = _merged(mine, sub) if isinstance(mine, Mapping) and isinstance(sub, Mapping) else sub
    return merged


def _times(obj: Obj) -> str:
    return ", ".join(sorted({str(entry.get("time")) for entry in _engine_entries(obj)}))


def _fields(moved: Sequence[Difference]) -> str:
    if not moved:
        return "no field differs (its metadata moved)"
    shown = "; ".join(difference.change() for difference in moved[:_SHOWN])
    more = len(moved) - _SHOWN
    return shown + (f"; and {more} more field(s)" if more > 0 else "")
