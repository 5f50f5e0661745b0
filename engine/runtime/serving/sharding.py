"""Parents sharded across replicas: each replica's own Lease and the sharder's labels.

The rules (who is live, who should own a parent, which write moves it) are pure and live in
``engine.core.decisions.coordination.sharding``; this module is the I/O around them, in two pieces:

- ``member`` makes the ``LeaderElector`` (``engine.runtime.serving.leader``, the one Lease client) that
  holds a replica's own Lease, ``stencil-shard-<identity>``, labelled so the sharder can list
  the members.  Nobody else campaigns for it, so it is held at once; what the elector adds is
  the renewal and the rule that a replica that cannot renew stops before its Lease expires.
- ``Sharder`` runs on the elected replica (the existing leader).  Every ``interval`` it reads
  the member Leases and every parent from its caches, and sends the label writes the rules
  ask for: assign, or mark draining.  It keeps one unfiltered cache of parents per kind
  (the replicas' own caches hold only their share), of their metadata alone
  (``sharding.as_sharder_keeps``), and no cache of children.
- the owner's side, the release of a parent marked draining, is a step of its reconcile
  (``engine.runtime.reconciling.moving.handover``).

Why labels and not a membership protocol of our own: a replica watches its parents with a
label selector, so the API server filters the watch, and ``kubectl get -L`` shows the
assignment; Leases already carry the expiry rules every controller agrees on.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from engine.core.decisions.coordination import sharding
from engine.core.model import errors, kinds
from engine.core.model.objects import Key, Obj, key_of
from engine.runtime.cluster.informers import Across, InformerSet
from engine.runtime.cluster.kube import Kube, Resource
from engine.runtime.cluster.seam import Api
from engine.runtime.reconciling.options import Options
from engine.runtime.serving import leader

if TYPE_CHECKING:
    from engine.runtime.telemetry.observability import Metrics

log = logging.getLogger("stencil.sharding")

MEMBER_SELECTOR = f"{sharding.LEASE_LABEL}=true"
WRITERS = 8  # label writes a pass has under way at once
# Parents a pass judges before it sends their writes: a first pass over a backlog of unlabelled
# parents holds at most this many decoded at once, not all of them (on 30,000 Networks the
# sharder peaked at 203 MiB when it held them all, at 160 MiB since).
CHUNK = 256
_UNJUDGED = object()  # what ``_settled`` answers for a parent not judged yet


def selector(identity: str) -> str:
    """The label selector of the parents a replica named ``identity`` owns."""
    return f"{sharding.OWNER_LABEL}={identity}"


def member(
    kube: Kube,
    *,
    namespace: str,
    identity: str,
    lease_duration: float,
    renew_deadline: float,
    retry_period: float,
    on_started: Callable[[], None],
    on_stopped: Callable[[], None],
) -> leader.LeaderElector:
    """The elector holding this replica's own Lease: ``on_started`` once it holds it,
    ``on_stopped`` (which must stop every write) before it could expire or is released."""
    sharding.check_identity(identity)
    return leader.LeaderElector(
        kube,
        namespace=namespace,
        name=sharding.lease_name(identity),
        identity=identity,
        lease_duration=lease_duration,
        renew_deadline=renew_deadline,
        retry_period=retry_period,
        on_started_leading=on_started,
        on_stopped_leading=on_stopped,
        labels={sharding.LEASE_LABEL: "true"},
    )


class ServedKind(Protocol):
    """A parent kind the engine serves, as the sharder reads it (a ``KindController`` is one)."""

    @property
    def name(self) -> str: ...

    @property
    def resource(self) -> Resource: ...

    @property
    def kind(self) -> kinds.Kind | None: ...


class Served(Protocol):
    """What the sharder reads of the engine (``manager.Engine`` is one): its client, its caches,
    the namespaces it watches, and the parent kinds it serves."""

    @property
    def kube(self) -> Api: ...

    @property
    def informers(self) -> InformerSet: ...

    @property
    def options(self) -> Options: ...

    @property
    def controllers(self) -> Mapping[tuple[str, str], ServedKind]: ...


class Members:
    """The live members, read from the shard Leases (each replica's own, renewed while it lives);
    any replica can ask, not only the sharder: a rollout adds up the live replicas' shares."""

    def __init__(self, engine: Served, namespace: str, clock: Callable[[], float] = time.monotonic) -> None:
        self.engine, self.namespace, self._clock = engine, namespace, clock
        self._seen: dict[str, tuple[leader.LeaseRecord, float]] = {}  # Lease name -> record, when it changed
        self._leases: Across | None = None
        self._lock = threading.Lock()

    @property
    def synced(self) -> bool:
        return self._leases is None or self._leases.has_synced

    def __call__(self) -> frozenset[str]:
        """The live members now, by the Leases' changes as seen here."""
        with self._lock:
            if self._leases is None:
                resource = self.engine.kube.resource(leader.LEASE_API_VERSION, "Lease")
                self._leases = self.engine.informers.ensure_across(
                    resource, (self.namespace,), label_selector=MEMBER_SELECTOR
                )
            now = self._clock()
            seen: dict[str, tuple[leader.LeaseRecord, float]] = {}
            for lease in self._leases.list():
                name = lease["metadata"]["name"]
                record = leader.LeaseRecord.from_spec(lease.get("spec") or {})
                before = self._seen.get(name)
                seen[name] = before if before is not None and before[0] == record else (record, now)
            self._seen = seen
        leases = [sharding.SeenLease(record.holder, record.duration, at) for record, at in seen.values()]
        return sharding.live_members(leases, now)


class Sharder:
    """Assigns every parent of every kind to a live member, moving them by the hand-over rules."""

    def __init__(
        self,
        engine: Served,
        *,
        namespace: str,
        interval: float = 1.0,
        metrics: Metrics | None = None,
        clock: Callable[[], float] = time.monotonic,
        serves: Callable[[tuple[str, str]], bool] = lambda gvk: True,
    ) -> None:
        self.engine = engine
        self._serves = serves  # the kinds this engine holds (``serving.holding``): only they are assigned
        self.kube = engine.kube
        self.namespace = namespace
        self.interval = interval
        self.metrics = metrics
        self._clock = clock
        self._members = Members(engine, namespace, clock)
        self._draining_since: dict[tuple[Resource, Key], float] = {}
        # Parents that needed no write, by kind and namespace, name and the resourceVersion they
        # were judged at, for the members ``_settled_for``: a pass skips them until either
        # changes, so an idle pass over 100,000 parents is a dictionary lookup each rather than a
        # hash per member each.  The names and versions are the cache's own strings, not copies.
        self._settled: dict[tuple[Resource, str], dict[str, str | None]] = {}
        self._settled_for: frozenset[str] = frozenset()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="sharder", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop sending label writes; returns once the pass under way is over."""
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()

    def _run(self) -> None:
        log.info("sharding parents across the live members")
        while not self._stop.is_set():
            try:
                self.tick()
            except Exception as exc:
                log.warning(
                    "sharding pass failed: %s", exc, exc_info=not isinstance(exc, errors.StencilError)
                )
            if self._stop.wait(self.interval):
                return

    def members(self) -> frozenset[str]:
        """The live members now, by the Leases' changes as this sharder saw them."""
        return self._members()

    def tick(self) -> int:
        """One pass over every parent; the number of label writes it sent (sent every ``CHUNK``
        parents judged)."""
        if not self._members.synced:
            return 0
        live = self.members()
        if self.metrics is not None:
            self.metrics.shard_members.set(len(live))
        moves: list[_Move] = []
        writes = 0
        before = self._settled if live == self._settled_for else {}
        settled: dict[tuple[Resource, str], dict[str, str | None]] = {}
        for gvk, controller in list(self.engine.controllers.items()):
            if not self._serves(gvk):
                continue  # another engine holds the kind: its sharder labels the parents
            if controller.kind is not None and controller.kind.decorates is not None:
                continue  # a decorator's parents are others' objects: never labelled for a shard
            resource = controller.resource
            everything = self.engine.informers.ensure_across(
                resource,
                self.engine.options.namespaces,
                metadata_only=True,
                transform=sharding.as_sharder_keeps,
            )
            if not everything.has_synced:
                continue
            scope: str | None = None  # the namespace whose records are at hand (versions come by namespace)
            judged: dict[str, str | None] = {}
            settling: dict[str, str | None] = {}
            for namespace, name, version in everything.versions():
                if namespace != scope:
                    scope = namespace
                    judged = before.get((resource, namespace), {})
                    settling = settled.setdefault((resource, namespace), {})
                if judged.get(name, _UNJUDGED) == version:
                    move = None  # judged at this version for these members: not decoded again
                else:
                    move = self._judge(everything, controller.name, resource, (namespace, name), live)
                if move is None:
                    settling[name] = version
                    continue
                moves.append(move)
                if len(moves) >= CHUNK:
                    writes += self._send(moves)
                    moves = []
                    if self._stop.is_set():
                        return writes
        # Parents gone, or of a kind no longer served, drop out.
        self._settled, self._settled_for = settled, live
        return writes + self._send(moves)

    def _send(self, moves: list[_Move]) -> int:
        """Send the moves' label writes, ``WRITERS`` at a time (a dead replica's thousands of
        parents are not reassigned one round trip after another), and record each written one
        in the order judged; the writes not yet sent when ``stop`` is called are dropped."""
        writes = 0
        if not moves:
            return writes
        with ThreadPoolExecutor(min(WRITERS, len(moves)), thread_name_prefix="sharder-write") as pool:
            for start in range(0, len(moves), WRITERS):
                if self._stop.is_set():
                    break
                batch = moves[start : start + WRITERS]
                sent = [pool.submit(self._write, move) for move in batch]
                for move, answer in zip(batch, sent, strict=True):
                    written, sent_at = answer.result()
                    if written is not None:
                        self._record(move, written, sent_at)
                        writes += 1
        return writes

    def _write(self, move: _Move) -> tuple[Obj | None, float]:
        """The parent as written, or None, and the wall time the write was sent: the moment the
        move may take effect from, which its log line says (it is logged once its batch is done)."""
        meta, sent = move.parent["metadata"], time.time()
        try:
            return self.kube.patch_json(move.resource, meta["name"], meta.get("namespace"), move.ops), sent
        except (errors.Invalid, errors.Conflict, errors.NotFound):
            return None, sent  # changed or gone since it was cached: the next pass sees it as it is

    def _judge(
        self, cache: Across, name: str, resource: Resource, key: tuple[str, str], live: frozenset[str]
    ) -> _Move | None:
        """The label write the parent at ``key`` (namespace or "", name) needs; None if it needs
        none (then it is settled at the version judged) or is gone."""
        parent = cache.get(key[0] or None, key[1])
        if parent is None:
            return None
        meta = parent["metadata"]
        labels = sharding.labels_of(parent)
        hashed = sharding.parent_key(resource.api_version, resource.kind, meta.get("namespace"), meta["name"])
        decision = sharding.decide(
            labels.get(sharding.OWNER_LABEL),
            sharding.DRAIN_LABEL in labels,
            sharding.owner_of(hashed, live),
            live,
        )
        ops = sharding.sharder_patch(parent, decision)
        return None if ops is None else _Move(cache, name, resource, parent, decision, ops)

    def _record(self, move: _Move, written: Obj, sent: float) -> None:
        """A sent move in the cache, the log and the metrics."""
        name, resource, decision = move.name, move.resource, move.decision
        move.cache.observe(written)
        where = key_of(move.parent)
        moment = self._clock()
        if decision.step is sharding.Step.DRAIN:
            self._draining_since[(resource, where)] = moment
            log.info(
                "draining parent",
                extra={
                    "kind": name,
                    "key": str(where),
                    "from": decision.owner,
                    "to": decision.to,
                    "sent": round(sent, 3),
                },
            )
            return
        began = self._draining_since.pop((resource, where), None)
        reason = (
            "new" if decision.owner is None and began is None else "handed-over" if began else "owner-gone"
        )
        log.info(
            "assigned parent",
            extra={
                "kind": name,
                "key": str(where),
                "from": decision.owner,
                "to": decision.to,
                "reason": reason,
                "sent": round(sent, 3),
            },
        )
        if self.metrics is not None:
            self.metrics.shard_assigned(name, reason, None if began is None else moment - began)


@dataclass(frozen=True)
class _Move:
    """A parent's label write, judged in a pass and not sent yet."""

    cache: Across
    name: str  # the kind's controller
    resource: Resource
    parent: Obj
    decision: sharding.Decision
    ops: list[Obj]
