"""Which replica reconciles which parent: membership, assignment and the hand-over, as pure rules.

With sharding on, every replica holds a Lease of its own, and one elected replica, the
sharder, labels each parent with the replica that owns it (``OWNER_LABEL``); each replica
watches only the parents carrying its own name.  The rules here decide, from what the
sharder sees, who the live members are, who should own a parent, and which label write
moves it.  The Lease and label I/O around them is ``engine.runtime.serving.sharding``.

- **Membership** follows the leader-election rule for expiry: a member is live while its
  Lease has changed within its own ``leaseDurationSeconds``, measured on the sharder's
  monotonic clock from when the sharder saw it change, so clock skew between nodes
  cannot keep a dead replica in (or put a live one out).
- **Assignment** is rendezvous (highest-random-weight) hashing over a stable digest of the
  parent's kind, namespace and name: every replica and every restart computes the same
  owner, and a member joining or leaving moves only the parents whose top choice it is,
  about 1/N of them, with no ring or virtual nodes to keep.
- **Hand-over** never lets two replicas write one parent's children.  A parent owned by a
  live replica that should move is first marked draining (``DRAIN_LABEL``); the owner
  acknowledges by removing both labels, from the worker that holds the parent's key, so
  no reconcile of it is under way; only a parent with no owner is assigned.  A parent
  whose owner's Lease expired is assigned at once: a replica that cannot renew its Lease
  stops before the Lease can expire, as a leader does.

Every write is a JSON patch that tests the resourceVersion (the sharder's) or the owner
label (the owner's release), so a write based on a stale read fails instead of undoing
a newer decision.

**Children follow their parent.**  A sharded replica labels each child it writes with its own
name too (``owned``), and caches only the children carrying it.  The owner that lets a parent
go relabels the parent's children for the replica it drains towards first, then records on the
parent, in its release, whom they were handed to and how many (``HANDED_OVER``, ``handed``); a
parent whose owner died is assigned with the dead owner recorded instead.  The new owner
reconciles the parent only once its cache holds that many of the parent's children
(``arrival``); when the record names another replica, or the children never come, it reads
them from the server and relabels them itself (``engine.runtime.reconciling.moving.handover``).
"""

from __future__ import annotations

import enum
import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

OWNER_LABEL = "shard.stencil.dev/owner"
DRAIN_LABEL = "shard.stencil.dev/drain"
LEASE_LABEL = "shard.stencil.dev/member"  # on each replica's Lease, so the sharder can list them
LEASE_PREFIX = "stencil-shard-"
# On a parent: "<replica>/<count>", the children its last owner relabelled for <replica> when it let
# go; "<replica>" alone, the owner that died holding it; "" when none is known (made unsharded, or
# its owner died letting go).
HANDED_OVER = "shard.stencil.dev/handed-over"

# A DNS label: ``stencil-shard-<identity>`` is then a valid Lease name, and the identity a valid
# label value; a pod's name (the default) is one.
_IDENTITY = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")


def check_identity(identity: str) -> None:
    """Refuse a replica name that cannot be both a label value and part of a Lease name."""
    if not _IDENTITY.match(identity):
        raise ValueError(
            f"shard identity {identity!r} must be lowercase letters, digits and '-', start and end "
            "with a letter or digit, and be at most 63 characters (it names a Lease and a label value)"
        )


def lease_name(identity: str) -> str:
    return LEASE_PREFIX + identity


def parent_key(api_version: str, kind: str, namespace: str | None, name: str) -> str:
    """What a parent is hashed by: its group, kind, namespace and name (not its version or uid,
    so an upgrade of the CRD's version or a restart of every replica moves nothing)."""
    group = api_version.rpartition("/")[0]
    return f"{group}/{kind}/{namespace or ''}/{name}"


def _weight(member: str, key: str) -> int:
    digest = hashlib.blake2b(f"{member}\x00{key}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def owner_of(key: str, members: Iterable[str]) -> str | None:
    """The member that should own ``key``: the one with the highest weight for it (None: no members)."""
    best: tuple[int, str] | None = None
    for member in members:
        candidate = (_weight(member, key), member)
        if best is None or candidate > best:
            best = candidate
    return best[1] if best is not None else None


@dataclass(frozen=True)
class SeenLease:
    """A member's Lease as the sharder saw it: who holds it, for how long, and when (on the
    sharder's monotonic clock) it last saw the record change."""

    holder: str
    duration: float
    changed_at: float


def live_members(leases: Iterable[SeenLease], now: float) -> frozenset[str]:
    """The holders whose Lease changed less than its duration ago; a released Lease (no holder)
    is not live, so a replica that shut down cleanly leaves at once."""
    return frozenset(
        lease.holder for lease in leases if lease.holder and now < lease.changed_at + lease.duration
    )


class Step(enum.Enum):
    KEEP = "keep"  # owned by the member it should be, or nobody can own it now
    ASSIGN = "assign"  # no owner, or the owner is gone: label it with the new owner
    DRAIN = "drain"  # a live owner that should not own it: ask it to let go
    WAIT = "wait"  # draining: the live owner has not let go yet


@dataclass(frozen=True)
class Decision:
    step: Step
    owner: str | None  # the owner now (its label), if any
    to: str | None = None  # the owner it should have


def decide(owner: str | None, draining: bool, desired: str | None, live: frozenset[str]) -> Decision:
    """What the sharder does about one parent labelled ``owner`` (``draining`` if marked so), which
    should belong to ``desired`` among the ``live`` members."""
    if desired is None:
        return Decision(Step.KEEP, owner)
    if owner is None or owner not in live:
        return Decision(Step.ASSIGN, owner, desired)
    if draining:
        # Even if ``desired`` is the owner again, the owner may be letting go right now: wait
        # for its release and assign afresh, rather than racing it.
        return Decision(Step.WAIT, owner, desired)
    if owner == desired:
        return Decision(Step.KEEP, owner)
    return Decision(Step.DRAIN, owner, desired)


def labels_of(obj: Mapping[str, Any]) -> Mapping[str, str]:
    labels: Mapping[str, str] = (obj.get("metadata") or {}).get("labels") or {}
    return labels


def as_sharder_keeps(obj: dict[str, Any]) -> dict[str, Any]:
    """What the sharder's cache keeps of a parent: what its assignments read, and no more.

    That is the parent's name, namespace and resourceVersion (its writes test it), the keys of its
    labels and annotations with the values of the sharder's own (``sharder_patch`` adds a map that
    is missing, and a map's keys tell it is there), and ``status: {}`` if the parent has a status
    (``sharder_patch`` asks whether a parent was reconciled before).  Other values, the uid, the
    timestamps, finalizers and owner references are dropped: the cache holds every parent of
    every kind, and a ``kubectl apply``'d parent's last-applied annotation alone is its whole
    spec again.

    Its lists and watches ask for metadata alone (``PartialObjectMetadata``), which carries no
    status; a status write shows in ``managedFields`` as an entry for the status subresource
    (or, without one, an entry that owns ``f:status``).  With no ``managedFields`` to read, the
    parent is taken to have a status: its new owner then lists its children once, where
    taking it to have none could leave them unfound.
    """
    meta = obj.get("metadata") or {}
    kept_meta = {key: meta[key] for key in _KEPT if key in meta}
    for field in ("labels", "annotations"):
        values = meta.get(field)
        if values is not None:
            kept_meta[field] = {key: value if key in _READ else "" for key, value in values.items()}
    kept: dict[str, Any] = {
        "apiVersion": obj.get("apiVersion"),
        "kind": obj.get("kind"),
        "metadata": kept_meta,
    }
    if "status" in obj or _status_written(obj):
        kept["status"] = {}
    return kept


_KEPT = ("name", "namespace", "resourceVersion")
_READ = frozenset({OWNER_LABEL, DRAIN_LABEL, HANDED_OVER})  # the labels and annotations it reads


def _status_written(obj: Mapping[str, Any]) -> bool:
    entries = (obj.get("metadata") or {}).get("managedFields")
    if not entries:
        return True  # nothing to tell by: see ``as_sharder_keeps``
    return any(
        entry.get("subresource") == "status" or "f:status" in (entry.get("fieldsV1") or {})
        for entry in entries
        if isinstance(entry, Mapping)
    )


def _path(label: str, field: str = "labels") -> str:
    return f"/metadata/{field}/" + label.replace("~", "~0").replace("/", "~1")


def sharder_patch(parent: Mapping[str, Any], decision: Decision) -> list[dict[str, Any]] | None:
    """The compare-and-swap JSON patch the sharder sends for ``decision``; None if it writes nothing."""
    meta = parent["metadata"]
    test = {"op": "test", "path": "/metadata/resourceVersion", "value": meta["resourceVersion"]}
    ops: list[dict[str, Any]] = [test]
    if "labels" not in meta or meta["labels"] is None:
        ops.append({"op": "add", "path": "/metadata/labels", "value": {}})
    labels = labels_of(parent)
    if decision.step is Step.ASSIGN:
        assert decision.to is not None
        ops.append({"op": "add", "path": _path(OWNER_LABEL), "value": decision.to})
        if DRAIN_LABEL in labels:
            ops.append({"op": "remove", "path": _path(DRAIN_LABEL)})
        # The children of a parent whose owner died are still labelled with it (or some, if it died
        # letting go, with another); those of a parent reconciled before sharding, with nobody:
        # the new owner must find them on the server.
        if decision.owner is not None or (HANDED_OVER not in _annotations(parent) and "status" in parent):
            ops.extend(_annotate(parent, "" if DRAIN_LABEL in labels else decision.owner or ""))
        return ops
    if decision.step is Step.DRAIN:
        assert decision.to is not None
        ops.append({"op": "add", "path": _path(DRAIN_LABEL), "value": decision.to})
        return ops
    return None


def release_patch(parent: Mapping[str, Any], identity: str, children: int = 0) -> list[dict[str, Any]] | None:
    """The owner's acknowledgement of a drain: remove the owner and drain labels, only if the
    parent is still labelled with ``identity``, and record the ``children`` it relabelled for the
    replica it drains towards; None if the parent is not draining from it."""
    labels = labels_of(parent)
    if labels.get(OWNER_LABEL) != identity or DRAIN_LABEL not in labels:
        return None
    return [
        {"op": "test", "path": _path(OWNER_LABEL), "value": identity},
        {"op": "remove", "path": _path(OWNER_LABEL)},
        {"op": "remove", "path": _path(DRAIN_LABEL)},
        *_annotate(parent, handed(labels[DRAIN_LABEL], children)),
    ]


def forged_drain(
    parent: Mapping[str, Any], identity: str, live: frozenset[str]
) -> list[dict[str, Any]] | None:
    """The write that takes a drain mark off ``identity``'s parent when the sharder cannot have made
    it: the mark names a replica other than the one the ``live`` members, as the owner sees them,
    give the parent (the sharder marks a parent for the member rendezvous gives it).  Whoever may
    edit a parent may write its labels; taken at its word, a forged mark would cost a relabel of
    every child there and back.  None when the mark may be the sharder's (or the owner sees no
    members to judge by: then it is honoured), or the parent is not draining from ``identity``."""
    labels = labels_of(parent)
    to = labels.get(DRAIN_LABEL)
    if labels.get(OWNER_LABEL) != identity or to is None or identity not in live:
        return None
    meta = parent.get("metadata") or {}
    api_version, kind = str(parent.get("apiVersion")), str(parent.get("kind"))
    key = parent_key(api_version, kind, meta.get("namespace"), meta["name"])
    if to != identity and owner_of(key, live) == to:
        return None
    return [
        {"op": "test", "path": _path(OWNER_LABEL), "value": identity},
        {"op": "test", "path": _path(DRAIN_LABEL), "value": to},
        {"op": "remove", "path": _path(DRAIN_LABEL)},
    ]


def handed(to: str, children: int) -> str:
    """The ``HANDED_OVER`` record of ``children`` relabelled for the replica ``to``."""
    return f"{to}/{children}"


def owned(child: dict[str, Any], identity: str | None) -> dict[str, Any]:
    """A rendered child as a sharded replica named ``identity`` writes it: labelled with its owner
    (the hash of what is applied leaves the label out, so a move rewrites no child).  Unsharded
    (None), the child is unchanged."""
    if identity is None:
        return child
    meta = child["metadata"]
    return {**child, "metadata": {**meta, "labels": {**(meta.get("labels") or {}), OWNER_LABEL: identity}}}


def relabel_patch(child: Mapping[str, Any], to: str) -> list[dict[str, Any]]:
    """The JSON patch that gives a child to the replica ``to``, if it is still the same object."""
    meta = child["metadata"]
    ops: list[dict[str, Any]] = [{"op": "test", "path": "/metadata/uid", "value": meta["uid"]}]
    if not meta.get("labels"):
        ops.append({"op": "add", "path": "/metadata/labels", "value": {}})
    ops.append({"op": "add", "path": _path(OWNER_LABEL), "value": to})
    return ops


def arrival(parent: Mapping[str, Any], identity: str) -> int | None:
    """How many of the parent's children a replica named ``identity`` must find in its cache
    before reconciling it: 0 when nothing was handed over (its children were made under this
    label), the count its last owner relabelled for ``identity``; None when they must be read from
    the server (handed to another replica, left by an owner that died, or never labelled)."""
    record = _annotations(parent).get(HANDED_OVER)
    if record is None:
        return 0
    to, _, count = record.partition("/")
    return int(count) if to == identity and count.isdigit() else None


def _annotations(obj: Mapping[str, Any]) -> Mapping[str, str]:
    annotations: Mapping[str, str] = (obj.get("metadata") or {}).get("annotations") or {}
    return annotations


def _annotate(parent: Mapping[str, Any], record: str) -> list[dict[str, Any]]:
    """The ops that set the parent's ``HANDED_OVER`` record."""
    ops: list[dict[str, Any]] = []
    if not parent["metadata"].get("annotations"):
        ops.append({"op": "add", "path": "/metadata/annotations", "value": {}})
    return [*ops, {"op": "add", "path": _path(HANDED_OVER, "annotations"), "value": record}]


class Holding(enum.Enum):
    """How a replica stands towards a parent in its cache."""

    OWNS = "owns"  # labelled with its name, not draining: reconcile it
    RELEASE = "release"  # labelled with its name and draining: let go, do not reconcile
    NOT_MINE = "not-mine"  # some other replica's (a stale cache): leave it alone


def holding(parent: Mapping[str, Any], identity: str) -> Holding:
    labels = labels_of(parent)
    if labels.get(OWNER_LABEL) != identity:
        return Holding.NOT_MINE
    return Holding.RELEASE if DRAIN_LABEL in labels else Holding.OWNS
