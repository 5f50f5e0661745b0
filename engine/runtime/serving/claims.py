"""When a kind's claim changes hands: the pure rules of ``engine.runtime.serving.holding``.

A claim (``engine.core.decisions.coordination.holding``) is not renewed by its holder: it is written when a
kind is taken and when it is released, and the holder's liveness is its engine's heartbeat, a
Lease the claim names.  These are leader election's rules (``engine.runtime.serving.leader``,
client-go's) with one change, the Lease whose stillness counts as expiry:

- a candidate reads the claim and, unless it is free or its own engine's, the heartbeat it names;
  the two together are what it saw (``Sight``).  It takes the kind when the claim is released
  (empty holder: at once), or when what it saw has not changed for the heartbeat's lease duration
  *as measured on its own monotonic clock* since it last saw it change (``decide``, which is
  ``leader.decide`` given that duration).  A remote time is never compared with the local clock;
- a heartbeat that is not there (deleted, or never written) stands still from when it was first
  seen missing, for the duration the claim records (the holder writes its heartbeat's duration
  there), so a holder that vanished is taken over like one that stopped renewing;
- a claim without the heartbeat annotation is its own heartbeat: an engine that renews its
  claims, as earlier ones did, is judged by them, and one of them stopping is noticed the same way;
- the holder's own engine "renews" (``RENEW``) its claim once when it takes its kinds, as a new
  leader of the engine does: a write with the resourceVersion read, so that a standby that judged
  the heartbeat dead at that moment and the new leader cannot both win (one gets a 409);
- the record written is ``leader.record_for``'s and a release is ``leader.released``'s:
  ``acquireTime`` and ``leaseTransitions`` move only when the holder changes.

Safety rests on the heartbeat's own election: a holder stops every write before its heartbeat
can have stood still for a lease duration (a leader that cannot renew within its renew deadline
steps down and the process exits), so a standby never takes a kind whose holder still writes.
"""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.core.decisions.coordination import holding
from engine.runtime.serving import leader
from engine.runtime.serving.leader import Action, LeaseRecord


@dataclass(frozen=True)
class Sight:
    """What a candidate read of a kind: its claim, the heartbeat it names, and that heartbeat's
    record (None: not there, or not read because the claim is free or the candidate's own)."""

    claim: LeaseRecord | None
    heartbeat: str = ""  # "namespace/name"; "": the claim is its own heartbeat
    beat: LeaseRecord | None = None


def heartbeat_of(annotations: Mapping[str, Any] | None) -> str:
    """The heartbeat a claim's annotations name, "namespace/name", or "" (the claim itself)."""
    return str((annotations or {}).get(holding.HEARTBEAT_ANNOTATION) or "")


def needs_heartbeat(claim: LeaseRecord | None, identity: str) -> bool:
    """Whether deciding on ``claim`` needs the heartbeat read: not when the claim is missing,
    free or already held by ``identity``'s engine."""
    return claim is not None and bool(claim.holder) and claim.holder != identity


def decide(sight: Sight, *, identity: str, now: float, observed_at: float) -> Action:
    """What the candidate engine ``identity`` does about the kind it just read: ``observed_at`` is
    when, on its monotonic clock, it first saw ``sight`` as it is now."""
    claim = sight.claim
    if claim is None:
        return Action.CREATE
    if sight.heartbeat and sight.beat is not None and sight.beat.duration > 0:
        claim = dataclasses.replace(claim, duration=sight.beat.duration)
    return leader.decide(claim, identity=identity, now=now, observed_at=observed_at)


def claim_for(
    action: Action, sight: Sight, *, identity: str, wall: datetime.datetime, duration: int
) -> LeaseRecord:
    """The claim to write for ``action`` by an engine whose heartbeat lasts ``duration`` seconds."""
    return leader.record_for(action, sight.claim, identity=identity, wall=wall, lease_duration=duration)


def released(claim: LeaseRecord, *, wall: datetime.datetime) -> LeaseRecord:
    """The claim a holder leaves behind on a clean shutdown: free, taken at once by a standby."""
    return leader.released(claim, wall=wall)
