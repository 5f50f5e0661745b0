"""Fields another writer keeps changing back: noticed, corrected ever more slowly, named.

Server-side apply with ``force`` makes Stencil the owner of every field it renders, and
drift correction puts such a field back whenever the cache shows another value.  When
another controller owns that field in practice (the Deployment controller's
``deployment.kubernetes.io/revision`` annotation, a mutating webhook's default), the two
writers answer each other at the speed of the watch: tens of applies a second, forever,
and a parent that is never Ready.

``Contention`` is the pure bookkeeping that stops it, per parent, child and field:

- every update that restores a field is a *restore*; a restore of the same value that
  follows the previous one within ``WINDOW`` (plus the back-off then in force) is a
  strike, a later one or a new rendered value (a spec change) starts the count again;
- from ``STRIKES`` restores in a row the field is *contested*: the next restore waits
  ``FIRST_BACKOFF``, doubling with every further strike up to ``MAX_BACKOFF``;
- an update whose every drifted field is contested and still backing off is *held*: not
  sent until the back-off ends.  A drifted field that is not contested is corrected at
  once, as always (the apply then restores the contested one as well).

It never reads the clock (``now`` is handed in) nor the cluster: the controller records
what it applied and asks before applying; naming the other writer from ``managedFields``
is ``other_managers``.  ``differences`` lists the drifted fields, metadata included.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.core.model.identity import ChildId

# Fields the cluster's own controllers set on the objects they serve: a template that renders one
# starts a contest at once (``stencil lint`` warns where one is written).
SET_BY_CONTROLLERS = {
    "deployment.kubernetes.io/revision": "the Deployment controller sets it to its newest ReplicaSet's",
    "deprecated.daemonset.template.generation": "the DaemonSet controller sets it to its generation",
    "pv.kubernetes.io/bind-completed": "the PersistentVolume controller sets it when it binds a claim",
    "pv.kubernetes.io/bound-by-controller": "the PersistentVolume controller sets it when it binds a claim",
    "volume.kubernetes.io/selected-node": "the scheduler sets it on a claim it waits to bind",
}

WINDOW = 60.0  # seconds: a restore this soon after the previous one of the field is a strike
STRIKES = 3  # restores in a row before a field counts as contested
FIRST_BACKOFF = 10.0  # seconds the first held restore waits
MAX_BACKOFF = 300.0  # and the longest any waits

Path = tuple[str | int, ...]


def differences(observed: Any, desired: Any, path: Path = ()) -> Iterator[Path]:
    """The paths of ``desired``'s values that ``observed`` does not hold, metadata included.

    Mappings may hold more keys in ``observed``; a list of another length differs as a
    whole, one of the same length item by item.
    """
    if isinstance(desired, Mapping):
        if not isinstance(observed, Mapping):
            yield path
            return
        for key, value in desired.items():
            if key not in observed:
                yield (*path, str(key))
            else:
                yield from differences(observed[key], value, (*path, str(key)))
    elif isinstance(desired, list):
        if not isinstance(observed, list) or len(observed) != len(desired):
            yield path
            return
        for index, (o, d) in enumerate(zip(observed, desired, strict=True)):
            yield from differences(o, d, (*path, index))
    elif isinstance(desired, bool) or isinstance(observed, bool):
        if desired is not observed:
            yield path
    elif observed != desired:
        yield path


def value_at(obj: Any, path: Path) -> Any:
    """What ``obj`` holds at ``path`` (None where it holds nothing)."""
    for part in path:
        if isinstance(part, int):
            obj = obj[part] if isinstance(obj, list) and part < len(obj) else None
        else:
            obj = obj.get(part) if isinstance(obj, Mapping) else None
    return obj


def dotted(path: Path) -> str:
    """``metadata.annotations["deployment.kubernetes.io/revision"]``, ``spec.containers[0].image``."""
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        elif part and all(c.isalnum() or c in "_-" for c in part):
            text += f".{part}" if text else part
        else:
            text += f'["{part}"]'
    return text


def other_managers(obj: Mapping[str, Any], path: Path, ours: str) -> list[str]:
    """The field managers besides ``ours`` that own ``path`` (or the list holding it) in ``obj``'s
    ``managedFields``, in the order the server lists them."""
    keys = [part for part in _until_list(path)]
    found = []
    for entry in obj.get("metadata", {}).get("managedFields") or ():
        if not isinstance(entry, Mapping) or entry.get("manager") == ours:
            continue
        fields: Any = entry.get("fieldsV1") or {}
        for key in keys:
            fields = fields.get(f"f:{key}") if isinstance(fields, Mapping) else None
            if fields is None:
                break
        else:
            name = str(entry.get("manager") or "an unnamed manager")
            if name not in found:
                found.append(name)
    return found


def _until_list(path: Path) -> Iterator[str]:
    # managedFields key list items by their merge key ("k:{...}"), not their index: the
    # list itself is as deep as a path can be followed without the item.
    for part in path:
        if isinstance(part, int):
            return
        yield part


@dataclass
class _Field:
    strikes: int = 0
    last: float = 0.0
    retry_at: float = 0.0  # while contested: no restore before this
    value: Any = None  # what was put back: a new rendered value starts the count again
    managers: tuple[str, ...] = ()  # who else owns it, once named
    announced: int = 0  # the strike whose hold was last announced

    def backoff(self) -> float:
        if self.strikes < STRIKES:
            return 0.0
        return float(min(FIRST_BACKOFF * 2 ** (self.strikes - STRIKES), MAX_BACKOFF))


@dataclass(frozen=True)
class Contest:
    """A field of a child that another writer keeps changing back."""

    child: ChildId
    path: Path
    restores: int  # in a row, the last one included
    retry_in: float  # seconds until it is restored again
    managers: tuple[str, ...] = ()  # who else owns it, when known
    announced: bool = True  # False: this hold is news (worth an event, and naming the other writer)

    @property
    def field(self) -> str:
        return dotted(self.path)

    def __str__(self) -> str:
        return self.message

    @property
    def message(self) -> str:
        who = " and ".join(self.managers) if self.managers else "another writer"
        return (
            f"{self.child}: {self.field} is changed back by {who} "
            f"(restored {self.restores} times in a row); restoring it again in {self.retry_in:.0f} s"
        )


@dataclass
class Contention:
    """Restores and back-offs of every parent's fields (see the module docstring)."""

    _parents: dict[str, dict[tuple[ChildId, Path], _Field]] = field(default_factory=dict)

    def restored(self, parent: str, child: ChildId, values: Mapping[Path, Any], now: float) -> list[Contest]:
        """Record that an update put back ``values`` (by path) of ``child`` at ``now``; the fields
        that are contested now, with their back-off.  Records of the parent's fields long at
        peace go."""
        fields = self._parents.setdefault(parent, {})
        for key in [k for k, state in fields.items() if now - state.last > WINDOW + state.backoff()]:
            del fields[key]
        contests = []
        for path, value in values.items():
            state = fields.setdefault((child, path), _Field())
            in_a_row = (
                state.strikes > 0 and state.value == value and now - state.last <= WINDOW + state.backoff()
            )
            state.strikes = state.strikes + 1 if in_a_row else 1
            state.last, state.value = now, value
            wait = state.backoff()
            state.retry_at = now + wait
            if wait:
                contests.append(Contest(child, path, state.strikes, wait, state.managers))
        if not fields:
            del self._parents[parent]
        return contests

    def held(self, parent: str, child: ChildId, paths: Sequence[Path], now: float) -> list[Contest]:
        """The contests that hold back an update restoring ``paths`` now: every drifted field is
        contested and backing off (none of them: the update goes ahead)."""
        fields = self._parents.get(parent, {})
        held = []
        for path in paths:
            state = fields.get((child, path))
            if state is None or state.retry_at <= now:
                return []
            wait = state.retry_at - now
            held.append(
                Contest(child, path, state.strikes, wait, state.managers, state.announced == state.strikes)
            )
        return held

    def announce(self, parent: str, contest: Contest, managers: Sequence[str]) -> Contest:
        """Record that the hold of ``contest`` was announced, naming ``managers`` (if any: else
        those named before); the contest as announced."""
        state = self._parents.get(parent, {}).get((contest.child, contest.path))
        if state is None:
            return contest
        state.announced = state.strikes
        state.managers = tuple(managers) or state.managers
        return Contest(contest.child, contest.path, contest.restores, contest.retry_in, state.managers)

    def forget(self, parent: str) -> None:
        """Drop the records of a parent that is gone."""
        self._parents.pop(parent, None)
