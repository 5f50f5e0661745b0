"""Which engine serves a kind: the kind's claim, its name and place, who an engine is, and its heartbeat.

Two engines serving one kind (two releases of the chart, or a ``stencil run`` beside an
installed engine) would both reconcile every parent and fight over every child.  So each kind
is held by one engine at a time on a claim, a ``coordination.k8s.io/v1`` Lease of its own that
names the holding engine.  The claim is written only when the kind changes hands; the holder's
liveness is one heartbeat per engine, whatever number of kinds it holds
(``engine.runtime.serving.claims`` decides, by leader election's rules; this module only names
things):

- **An engine is one installation, not one replica.**  The claim's holder is the engine's
  identity, which every replica of one release shares: by default the namespace and name of
  its leader Lease (``engine_identity``), the one thing the replicas of a release already agree
  on to find each other.  Only the replica that leads (or the one process, without leader
  election) takes kinds, so the replicas' own election and sharding are untouched, and a new
  leader of the same engine keeps the kinds its engine holds.  A process without leader
  election is an engine of its own (host and a random id, as client-go names a candidate): two
  ``stencil run`` on one machine must not count as one.
- **The heartbeat** is a Lease the engine renews anyway: its leader Lease when it is
  leader-elected (holding kinds then costs no write beyond leader election), else one Lease of
  its own, ``stencil-engine.<identity>`` (``heartbeat_name``), renewed at a slow pace.  The claim
  names it in the annotation ``stencil.dev/heartbeat`` (``HEARTBEAT_ANNOTATION``,
  ``namespace/name``), so a standby knows which Lease to watch; a claim without it (written by an
  engine that renewed its claims) is its own heartbeat.
- **The name** of a claim is the kind's, ``stencil-kind.<kind>.<group>`` (``lease_name``), so
  that every engine serving the kind finds the same Lease, and ``kubectl get leases -l
  stencil.dev/kind-lease`` lists the kinds with their holders.  It names no version: a kind
  whose hub moves to another version of its group keeps the claim it holds (``claims_of``).
- **The place** must be one namespace that two releases installed in two namespaces both
  see; a release's own namespace is not.  A Lease is namespaced and there is no cluster-scoped
  kind to hold a lease on, so the place is a well-known namespace: ``kube-system``
  (``DEFAULT_NAMESPACE``), which every cluster has, where the cluster's other singletons
  coordinate, and where an engine is granted ``create`` and the ``get``/``update`` of exactly its
  kinds' Leases by name (``engine.core.offline.rbac.kind_lease_rules``), never the Leases of the
  scheduler or the controller manager.  An engine that watches only some namespaces serves the
  kind there only, and two such engines in disjoint namespaces do not contend; it holds the
  kind's claim in the first namespace it watches (``lease_namespace``), where two engines
  watching that namespace meet.  Engines watching different but overlapping sets of namespaces
  do not see each other.
- **A standby writes nothing**: it says who holds the kind in a log line, an Event on the kind's
  Lease and ``leader_election_master_status`` (0) for that Lease, and the Lease itself names the
  holder.  It reads the claim and the heartbeat the claim names, and takes the kind when the
  claim is released or the heartbeat has stood still for its lease duration.
"""

from __future__ import annotations

import hashlib
import re
import socket
import uuid
from collections.abc import Iterable

LEASE_LABEL = "stencil.dev/kind-lease"  # "true" on every kind's Lease
HEARTBEAT_ANNOTATION = "stencil.dev/heartbeat"  # on a claim: "namespace/name" of its holder's heartbeat
HEARTBEAT_PREFIX = "stencil-engine."
DEFAULT_NAMESPACE = "kube-system"
PREFIX = "stencil-kind."
MAX_NAME = 253  # a Lease's name is a DNS subdomain


def lease_name(api_version: str, kind: str) -> str:
    """The name of the Lease that holds the parent kind ``kind`` of ``api_version``, for any
    version of its group; a name too long for a DNS subdomain ends in a digest instead."""
    group = api_version.rpartition("/")[0] or "core"
    name = f"{PREFIX}{kind.lower()}.{group.lower()}"
    if len(name) <= MAX_NAME:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:16]
    return f"{name[: MAX_NAME - 17].rstrip('.-')}.{digest}"


def claims_of(parents: Iterable[tuple[str, str]]) -> dict[str, frozenset[tuple[str, str]]]:
    """The claims the parent kinds ``(apiVersion, kind)`` are held on, by name: one for every
    version of a group's kind, so the same claim for a kind before and after its hub moves."""
    found: dict[str, set[tuple[str, str]]] = {}
    for parent in parents:
        found.setdefault(lease_name(*parent), set()).add(parent)
    return {name: frozenset(served) for name, served in found.items()}


def lease_namespace(given: str | None, watched: tuple[str, ...]) -> str:
    """Where an engine watching ``watched`` (none: all) holds its kinds' Leases, unless ``given``."""
    if given:
        return given
    return watched[0] if watched else DEFAULT_NAMESPACE


def heartbeat_name(identity: str) -> str:
    """The Lease an engine ``identity`` without leader election renews as its heartbeat: its
    identity made a DNS subdomain, ending in a digest of the identity when that changed it."""
    slug = re.sub(r"[^a-z0-9]+", "-", identity.lower()).strip("-") or "engine"
    name = f"{HEARTBEAT_PREFIX}{slug}"
    if slug == identity and len(name) <= MAX_NAME:
        return name
    digest = hashlib.sha256(identity.encode()).hexdigest()[:16]
    return f"{name[: MAX_NAME - 17].rstrip('.-')}.{digest}"


def engine_identity(given: str | None, leader_lease: tuple[str, str] | None) -> str:
    """The holder an engine writes on its kinds' Leases: ``given``; else, for replicas that elect a
    leader on the Lease ``(namespace, name)``, ``namespace/name``, which they all share; else this
    process alone, ``<host>_<uuid>``."""
    if given:
        return given
    if leader_lease is not None:
        return "/".join(leader_lease)
    return f"{socket.gethostname()}_{uuid.uuid4()}"


def standing_by(kind: str, holder: str, identity: str) -> str:
    """What a standby says about a kind that another engine holds."""
    return f"engine {identity} stands by for kind {kind}: engine {holder} holds it"


def holding(kind: str, identity: str) -> str:
    """What an engine says when it takes a kind."""
    return f"engine {identity} holds kind {kind} and reconciles its parents"
