"""Which parents move to a kind's new revision now: the waves of a progressive rollout.

A kind's parents each record the revision of the kind their children come from
(``status.kindRevision``: its number, and when the parent moved to it).  A rollout
moves them to the target revision in waves: a parent counts as unavailable from its
move until it is Ready at the new revision, and no more than the policy's bound are
unavailable at once (``Policy.bound``).  A moved parent that fails (its templates do
not render, the server refuses a child, a child's name is taken, or it is not Ready
within the progress deadline) is counted as failed and holds no room in the waves: the
rollout goes on for the others until the failures pass the policy's budget (of parents,
and of namespaces with a failed parent), then nobody else moves until it is resumed, and
the parents not yet moved keep their children exactly as they are.  With shards, each
replica counts its own parents (a ``Share``) and the budget compares every live replica's
shares added up.

``step`` is pure: the parents' standing (read from their status by ``standing``), the
policy, the target and the clock in; the parents to move now and what to say of the
rollout out.
"""

from __future__ import annotations

import datetime
import hashlib
import json
from collections import Counter
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
from engine.core.model.objects import Key
from engine.core.model.rollouts import Policy

MOVING = "RevisionChanged"  # Ready's reason from a parent's move until it reports at the new revision
DEADLINE_EXCEEDED = "ProgressDeadlineExceeded"
_NO_KEY = Key("", "")  # a standing read for what it says, of no parent in particular
_NOT_FAILURES = (WAITING_FOR_DEPENDENCIES, CONTESTED_FIELD)  # ChildrenApplied False on the way, not a failure


@dataclass(frozen=True)
class Standing:
    """Where one parent stands: the revision it is on, since when, and how it is doing there."""

    key: Key
    revision: int | None  # None: it has recorded none yet
    since: str = ""  # when it moved to ``revision`` (RFC 3339)
    ready: bool = False  # Ready at its generation, at ``revision``
    failure: tuple[str, str] | None = None  # (reason, message) of a step that failed at ``revision``


@dataclass(frozen=True)
class Failure:
    """Why a rollout paused, in counts: never a tenant's parent or its error, which its own status
    and events (in its own namespace) say."""

    reason: str  # the failed parents' most common reason (a CamelCase code)
    failed: int
    namespaces: int
    message: str

    def __str__(self) -> str:
        return f"{self.reason}: {self.message}"


@dataclass(frozen=True)
class Share:
    """What one replica of a sharded engine counts of the parents it owns, as it writes them in
    the KindRollout's ``status.shares``; the rollout's counts and budget are the sum of the live
    replicas' shares.  ``namespaces`` are digests of the namespaces with a failed parent, so that
    a namespace failing on two replicas counts once, and no name is written."""

    parents: int = 0
    updated: int = 0
    unavailable: int = 0
    failed: int = 0
    namespaces: tuple[str, ...] = ()
    reasons: tuple[str, ...] = ()  # the failed parents' reasons, one each (at most a few kept)


@dataclass(frozen=True)
class Step:
    """What a rollout does now, and how far it got (this replica's parents; the totals add the
    other replicas' shares)."""

    target: int
    admit: tuple[Key, ...]  # parents to move to the target now
    moving: tuple[Key, ...]  # moved and not Ready yet, not failed (the unavailable ones)
    updated: int  # at the target and Ready
    total: int
    bound: int  # at most this many moving at once
    failure: Failure | None = None  # the failures past the budget, when they are
    share: Share = Share()  # this replica's own counts
    totals: Share = Share()  # every live replica's counts added up

    @property
    def complete(self) -> bool:
        return self.totals.updated == self.totals.parents


def standing(key: Key, parent: Mapping[str, Any]) -> Standing:
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


def revision_of(parent: Mapping[str, Any]) -> int | None:
    """The revision of its kind a parent records (``status.kindRevision``), if any."""
    return standing(_NO_KEY, parent).revision


def standing_value(parent: Mapping[str, Any]) -> list[str]:
    """A parent's standing as a cache index value (``standing`` without its key), so that a rollout
    reads every parent's standing without decoding one; none for a parent that records nothing."""
    found = standing(_NO_KEY, parent)
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
    number = revision_of(parent)
    if number is not None:
        kept["status"] = {KIND_REVISION: {"number": number}}
    return kept


def standing_of(key: Key, value: str) -> Standing:
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
    admitted: frozenset[Key] = frozenset(),
    others: Sequence[Share] = (),
) -> Step:
    """Which parents move to ``target`` now, given where every parent stands.

    A moved parent that fails (``_failure``) is counted as failed, not as moving: it holds no
    room in the waves, and the rollout goes on for the others until the failures, added up over
    this replica's parents and the ``others`` replicas' shares, pass the policy's budget
    (``over_budget``).  ``resumed`` (RFC 3339) is when the rollout was last resumed: a parent's
    deadline runs from its move or from then, whichever is later, so a resumed rollout gives
    the parents that were moving when it stopped their time again.  ``admitted`` are the
    parents told to move that have not recorded it yet: they count as moving, and are not told
    twice.
    """
    at_target = [p for p in parents if p.revision == target]
    arrived = [p for p in at_target if not p.ready]  # moved, not Ready yet
    told = admitted & {p.key for p in parents if p.revision != target}  # moving, not recorded yet
    failed = {p.key: found for p in arrived if (found := _failure(p, policy, now, resumed)) is not None}
    moving = sorted({*(p.key for p in arrived if p.key not in failed), *told}, key=str)  # as said
    share = Share(
        parents=len(parents),
        updated=len(at_target) - len(arrived),
        unavailable=len(moving),
        failed=len(failed),
        namespaces=tuple(sorted({namespace_digest(key.namespace) for key in failed})),
        reasons=tuple(sorted(failed.values()))[:_REASONS],
    )
    totals = add(share, *others)
    failure = over_budget(policy, totals)
    bound = policy.bound(len(parents))
    pending = sorted((p.key for p in parents if p.revision != target and p.key not in told), key=str)
    room = 0 if paused or failure else max(0, bound - len(moving))
    return Step(
        target=target,
        admit=tuple(pending[:room]),
        moving=tuple(moving),
        updated=share.updated,
        total=len(parents),
        bound=bound,
        failure=failure,
        share=share,
        totals=totals,
    )


_REASONS = 20  # failure reasons a share keeps, to name the most common


def add(*shares: Share) -> Share:
    """Replicas' shares added up; a namespace that failed on several counts once."""
    return Share(
        parents=sum(s.parents for s in shares),
        updated=sum(s.updated for s in shares),
        unavailable=sum(s.unavailable for s in shares),
        failed=sum(s.failed for s in shares),
        namespaces=tuple(sorted({n for s in shares for n in s.namespaces})),
        reasons=tuple(r for s in shares for r in s.reasons),
    )


def over_budget(policy: Policy, totals: Share) -> Failure | None:
    """The failures, when they pass the policy's budget: more failed parents than
    ``maxFailures`` of them, or failed parents in more than ``maxFailedNamespaces`` namespaces."""
    budget, spread = policy.failure_budget(totals.parents), len(totals.namespaces)
    if totals.failed <= budget and spread <= policy.max_failed_namespaces:
        return None
    reasons = Counter(totals.reasons)
    reason = min(reasons, key=lambda r: (-reasons[r], r)) if reasons else "Failed"
    message = (
        f"{totals.failed} of {totals.parents} parents failed, in {spread} namespace(s): past the budget"
        f" of {budget} parent(s) in {policy.max_failed_namespaces} namespace(s)"
    )
    return Failure(reason, totals.failed, spread, message)


def namespace_digest(namespace: str) -> str:
    """Eight hex digits standing for a namespace in a share (equal names, equal digest)."""
    return hashlib.sha256(namespace.encode()).hexdigest()[:8]


def _failure(parent: Standing, policy: Policy, now: datetime.datetime, resumed: str) -> str | None:
    """Why a moved parent failed (its step's reason, or the deadline's), or None."""
    if parent.failure is not None:
        return parent.failure[0] or "Failed"
    start = max(_moment(parent.since), _moment(resumed))
    if start != _EPOCH and (now - start).total_seconds() > policy.progress_deadline:
        return DEADLINE_EXCEEDED
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
    """A KindRollout's status: the revisions, how many parents moved and failed (every live
    replica's added up), and two conditions: ``Progressing`` (False once failures passed the
    budget, or it was paused) and ``Ready`` (True once every parent is Ready at the update
    revision).  It names no parent and quotes no error: those are a tenant's, said on the
    parent itself."""
    totals = step.totals
    if step.failure is not None:
        progressing = (conditions.FALSE, step.failure.reason, step.failure.message)
    elif paused:
        progressing = (conditions.FALSE, "Paused", "paused; `stencil rollout resume` goes on")
    elif step.complete:
        progressing = (conditions.TRUE, "Complete", f"every parent is at revision {step.target}")
    else:
        moved = f"{totals.updated} of {totals.parents} parents at revision {step.target}"
        failed = f"; {totals.failed} failed" if totals.failed else ""
        progressing = (conditions.TRUE, "RollingOut", f"{moved}; {totals.unavailable} moving{failed}")
    ready = (
        (conditions.TRUE, "Complete", progressing[2])
        if step.complete
        else (conditions.FALSE, *progressing[1:])
    )
    said: dict[str, Any] = {
        "currentRevision": current,
        "updateRevision": step.target,
        "parents": totals.parents,
        "updatedParents": totals.updated,
        "unavailableParents": totals.unavailable,
        "failedParents": totals.failed,
        "failedNamespaces": len(totals.namespaces),
        "conditions": _conditions(old, progressing, ready, now),
    }
    if step.failure is not None:
        said["failure"] = {"reason": step.failure.reason, "message": step.failure.message}
    return said


def share_status(share: Share, now: str) -> dict[str, Any]:
    """A replica's share as it writes it in ``status.shares``."""
    return {
        "parents": share.parents,
        "updated": share.updated,
        "unavailable": share.unavailable,
        "failed": share.failed,
        "failedNamespaces": list(share.namespaces),
        "reasons": list(share.reasons),
        "at": now,
    }


def shares_of(status: Mapping[str, Any], live: Iterable[str], mine: str) -> list[Share]:
    """The other live replicas' shares, read from a KindRollout's status: a replica no longer
    live (its shard Lease expired or released) drops out of the counts at once."""
    found = status.get("shares")
    found = found if isinstance(found, Mapping) else {}
    kept = []
    for identity in sorted(set(live) - {mine}):
        entry = found.get(identity)
        if isinstance(entry, Mapping):
            kept.append(
                Share(
                    parents=_count(entry, "parents"),
                    updated=_count(entry, "updated"),
                    unavailable=_count(entry, "unavailable"),
                    failed=_count(entry, "failed"),
                    namespaces=tuple(str(n) for n in entry.get("failedNamespaces") or ()),
                    reasons=tuple(str(r) for r in entry.get("reasons") or ()),
                )
            )
    return kept


def _count(entry: Mapping[str, Any], key: str) -> int:
    value = entry.get(key)
    return value if isinstance(value, int) and value >= 0 else 0


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
