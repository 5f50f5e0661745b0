"""Which parents move to a kind's new revision now: the waves of a progressive rollout.

A kind's parents each record the revision of the kind their children come from
(``status.kindRevision``: its number, and when the parent moved to it).  A rollout
moves them to the target revision in waves: a parent counts as unavailable from its
move until it is Ready at the new revision, and no more than the policy's bound are
unavailable at once (``Policy.bound``).  A moved parent that fails (its templates do
not render, the server refuses a child, a child's name is taken, or it is not Ready
within the progress deadline) stops the rollout: nobody else moves until it is resumed,
and the parents not yet moved keep their children exactly as they are.

``step`` is pure: the parents' standing (read from their status by ``standing``), the
policy, the target and the clock in; the parents to move now and what to say of the
rollout out.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.core.decisions import conditions
from engine.core.decisions.status import (
    CHILDREN_APPLIED,
    CONTESTED_FIELD,
    KIND_REVISION,
    READY,
    TEMPLATES_RENDERED,
    WAITING_FOR_DEPENDENCIES,
)
from engine.core.model.rollouts import Policy

MOVING = "RevisionChanged"  # Ready's reason from a parent's move until it reports at the new revision
DEADLINE_EXCEEDED = "ProgressDeadlineExceeded"
_NOT_FAILURES = (WAITING_FOR_DEPENDENCIES, CONTESTED_FIELD)  # ChildrenApplied False on the way, not a failure


@dataclass(frozen=True)
class Standing:
    """Where one parent stands: the revision it is on, since when, and how it is doing there."""

    key: str  # namespace/name
    revision: int | None  # None: it has recorded none yet
    since: str = ""  # when it moved to ``revision`` (RFC 3339)
    ready: bool = False  # Ready at its generation, at ``revision``
    failure: tuple[str, str] | None = None  # (reason, message) of a step that failed at ``revision``


@dataclass(frozen=True)
class Failure:
    """The parent that stopped a rollout, and why."""

    parent: str
    reason: str
    message: str

    def __str__(self) -> str:
        return f"{self.parent}: {self.reason}: {self.message}"


@dataclass(frozen=True)
class Step:
    """What a rollout does now, and how far it got."""

    target: int
    admit: tuple[str, ...]  # parents to move to the target now
    moving: tuple[str, ...]  # moved and not Ready yet (the unavailable ones)
    updated: int  # at the target and Ready
    total: int
    bound: int  # at most this many moving at once
    failure: Failure | None = None

    @property
    def complete(self) -> bool:
        return self.updated == self.total


def standing(key: str, parent: Mapping[str, Any]) -> Standing:
    """A parent's standing, read from its status (``status.kindRevision`` and its conditions)."""
    status = parent.get("status")
    status = status if isinstance(status, Mapping) else {}
    record = status.get(KIND_REVISION)
    if not isinstance(record, Mapping) or not isinstance(record.get("number"), int):
        return Standing(key, None)
    found = {c.get("type"): c for c in status.get("conditions") or () if isinstance(c, Mapping)}
    generation = (parent.get("metadata") or {}).get("generation")
    ready_condition = found.get(READY) or {}
    ready = (
        ready_condition.get("status") == conditions.TRUE
        and status.get("observedGeneration", generation) == generation
    )
    failure = None
    rendered, applied = found.get(TEMPLATES_RENDERED) or {}, found.get(CHILDREN_APPLIED) or {}
    if rendered.get("status") == conditions.FALSE:
        failure = (str(rendered.get("reason", "")), str(rendered.get("message", "")))
    elif applied.get("status") == conditions.FALSE and applied.get("reason") not in _NOT_FAILURES:
        failure = (str(applied.get("reason", "")), str(applied.get("message", "")))
    if ready_condition.get("reason") == MOVING:  # recorded its move; has not reported from there yet
        ready, failure = False, None
    return Standing(key, record["number"], str(record.get("since", "")), ready, failure)


def standing_value(parent: Mapping[str, Any]) -> list[str]:
    """A parent's standing as a cache index value (``standing`` without its key), so that a rollout
    reads every parent's standing without decoding one; none for a parent that records nothing."""
    found = standing("", parent)
    if found.revision is None:
        return []
    return [json.dumps([found.revision, found.since, found.ready, found.failure])]


def record_only(parent: Mapping[str, Any]) -> dict[str, Any]:
    """What a cache of every parent keeps to learn which revisions they record: the parent's
    name, namespace and version, and the number it records (``status.kindRevision``)."""
    meta = parent.get("metadata") or {}
    kept: dict[str, Any] = {
        "apiVersion": parent.get("apiVersion"),
        "kind": parent.get("kind"),
        "metadata": {k: meta[k] for k in ("name", "namespace", "uid", "resourceVersion") if k in meta},
    }
    number = standing("", parent).revision
    if number is not None:
        kept["status"] = {KIND_REVISION: {"number": number}}
    return kept


def standing_of(key: str, value: str) -> Standing:
    """The standing ``standing_value`` wrote for the parent with ``key``."""
    revision, since, ready, failure = json.loads(value)
    return Standing(key, revision, since, ready, tuple(failure) if failure else None)


def step(
    policy: Policy,
    target: int,
    parents: Sequence[Standing],
    now: datetime.datetime,
    *,
    paused: bool = False,
    resumed: str = "",
    admitted: frozenset[str] = frozenset(),
) -> Step:
    """Which parents move to ``target`` now, given where every parent stands.

    ``resumed`` (RFC 3339) is when the rollout was last resumed: a parent's deadline runs
    from its move or from then, whichever is later, so a resumed rollout gives the parents
    that were moving when it stopped their time again.  ``admitted`` are the parents told to
    move that have not recorded it yet: they count as moving, and are not told twice.
    """
    at_target = [p for p in parents if p.revision == target]
    arrived = [p for p in at_target if not p.ready]  # moved, not Ready yet
    told = admitted & {p.key for p in parents if p.revision != target}  # moving, not recorded yet
    failures = [found for p in arrived if (found := _failure(p, policy, now, resumed)) is not None]
    failure = min(failures, key=lambda f: f.parent) if failures else None
    moving = sorted({*(p.key for p in arrived), *told})
    bound = policy.bound(len(parents))
    pending = sorted(p.key for p in parents if p.revision != target and p.key not in told)
    room = 0 if paused or failure else max(0, bound - len(moving))
    return Step(
        target=target,
        admit=tuple(pending[:room]),
        moving=tuple(moving),
        updated=len(at_target) - len(arrived),
        total=len(parents),
        bound=bound,
        failure=failure,
    )


def _failure(parent: Standing, policy: Policy, now: datetime.datetime, resumed: str) -> Failure | None:
    if parent.failure is not None:
        return Failure(parent.key, *parent.failure)
    start = max(_moment(parent.since), _moment(resumed))
    if start != _EPOCH and (now - start).total_seconds() > policy.progress_deadline:
        return Failure(
            parent.key, DEADLINE_EXCEEDED, f"not Ready within {policy.progress_deadline:.0f}s of its move"
        )
    return None


_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)


def _moment(text: str) -> datetime.datetime:
    """An RFC 3339 time as the API server writes it; the epoch if there is none."""
    if not text:
        return _EPOCH
    return datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.UTC)


def moved(parent: Mapping[str, Any], revision: int, now: str) -> dict[str, Any]:
    """The status that records a parent's move to ``revision``, written before its children change:
    the record first, so that an engine stopped between the two moves nobody twice or never.
    ``Ready`` is Unknown until the parent reports from the new revision."""
    old = parent.get("status")
    status = dict(old) if isinstance(old, Mapping) else {}
    status[KIND_REVISION] = {"number": revision, "since": now}
    generation = (parent.get("metadata") or {}).get("generation")
    message = f"moving to revision {revision} of its kind"
    ready = conditions.Condition(
        READY, conditions.UNKNOWN, MOVING, message, generation if isinstance(generation, int) else None
    )
    status["conditions"] = conditions.set_condition(conditions.of(parent), ready, now)
    return status


PROGRESSING = "Progressing"


def summary(
    step: Step, current: int | None, paused: bool, old: Mapping[str, Any] | None, now: str
) -> dict[str, Any]:
    """A KindRollout's status: the revisions, how many parents moved, and two conditions:
    ``Progressing`` (False once a parent stopped the rollout, or it was paused) and ``Ready``
    (True once every parent is Ready at the update revision)."""
    if step.failure is not None:
        progressing = (conditions.FALSE, step.failure.reason, str(step.failure))
    elif paused:
        progressing = (conditions.FALSE, "Paused", "paused; `stencil rollout resume` goes on")
    elif step.complete:
        progressing = (conditions.TRUE, "Complete", f"every parent is at revision {step.target}")
    else:
        moved = f"{step.updated} of {step.total} parents at revision {step.target}"
        progressing = (conditions.TRUE, "RollingOut", f"{moved}; {len(step.moving)} moving")
    ready = (
        (conditions.TRUE, "Complete", progressing[2])
        if step.complete
        else (conditions.FALSE, *progressing[1:])
    )
    found = [dict(c) for c in (old or {}).get("conditions") or ()]
    for type_, (state, reason, message) in ((PROGRESSING, progressing), (READY, ready)):
        condition = conditions.Condition(
            type_, state, conditions.reason_from(reason, "Unknown"), message[:4096]
        )
        found = conditions.set_condition(found, condition, now)
    said: dict[str, Any] = {
        "currentRevision": current,
        "updateRevision": step.target,
        "parents": step.total,
        "updatedParents": step.updated,
        "unavailableParents": len(step.moving),
        "conditions": found,
    }
    if step.failure is not None:
        said["failure"] = {
            "parent": step.failure.parent,
            "reason": step.failure.reason,
            "message": step.failure.message,
        }
    return said


INVALID = "InvalidKind"


def invalid(old: Mapping[str, Any] | None, error: str, now: str) -> dict[str, Any]:
    """A KindRollout's status once its folder no longer loads: what it said, with both conditions
    False for that reason (its parents stay on the revisions they are on)."""
    said = dict(old or {})
    said["conditions"] = _conditions(
        old, (conditions.FALSE, INVALID, error), (conditions.FALSE, INVALID, error), now
    )
    return said


def _conditions(
    old: Mapping[str, Any] | None, progressing: tuple[str, str, str], ready: tuple[str, str, str], now: str
) -> list[dict[str, Any]]:
    found = [dict(c) for c in (old or {}).get("conditions") or ()]
    for type_, (state, reason, message) in ((PROGRESSING, progressing), (READY, ready)):
        reason = conditions.reason_from(reason, "Unknown")
        found = conditions.set_condition(
            found, conditions.Condition(type_, state, reason, message[:4096]), now
        )
    return found


HISTORY = 10  # revisions kept beyond those in use, newest first (a Deployment's revisionHistoryLimit)


def unneeded(numbers: Iterable[int], in_use: Iterable[int], history: int = HISTORY) -> list[int]:
    """The revisions nobody needs any more: not in use (a parent records it, or the rollout moves
    from or to it) and older than the ``history`` newest of the others."""
    used = set(in_use)
    spare = sorted(n for n in set(numbers) if n not in used)
    return spare[: max(0, len(spare) - history)]
