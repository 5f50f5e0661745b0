"""``stencil run``: the engine against a cluster, optionally leader-elected, optionally sharded.

Each kind is served by one engine at a time: the replica that reconciles (the leader, or the
one process) claims each kind on a Lease of its own as the engine's identity, and an engine that
finds a kind held stands by for it and says who holds it (``engine.runtime.serving.holding``).
The claims are written only when a kind changes hands; the engine's liveness is one heartbeat,
its leader Lease, or without leader election a Lease of its own (``--heartbeat-lease``) renewed
every 20 s and lasting 60 s by default: 3 writes a minute however many kinds it holds, where a
Lease renewed at leader election's pace costs 30.  A 40 s renew deadline leaves the process two
renewals to miss before it stops, and 20 s of margin before a standby, which waits 60 s of its
own clock, may take its kinds; a crashed engine's kinds move within about a minute, a stopped
one's at once (it releases them).

With ``--shards`` every replica holds a Lease of its own and reconciles only the parents
labelled with its name; the replica holding the leader Lease also runs the sharder, which
writes those labels (``engine.runtime.serving.sharding``).
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import click

from engine.tools.cli import options
from engine.tools.cli._common import main, stop_event
from engine.tools.cli.operating import holds as leases

if TYPE_CHECKING:
    from engine.runtime.cluster.kube import Kube
    from engine.runtime.serving import holding, leader, manager
    from engine.runtime.telemetry import httpserver, observability

log = logging.getLogger("stencil")


@main.command()
@options.templates(exists=False)
@options.kubeconfig(
    "Kubeconfig to use (default: $KUBECONFIG, ~/.kube/config, or the in-cluster service account)."
)
@click.option(
    "--namespace",
    "namespaces",
    multiple=True,
    help="Watch this namespace (repeat for several; default: all).",
)
@click.option("--workers", default=4, show_default=True, help="Concurrent reconciles per kind.")
@click.option("--resync", default=600.0, show_default=True, help="Seconds between resyncs from the cache.")
@click.option("--log-format", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--log-level", default="INFO", show_default=True)
@click.option(
    "--metrics-bind-address",
    default=":8443",
    show_default=True,
    help="host:port for /metrics; '0' turns it off.",
)
@click.option(
    "--metrics-secure/--no-metrics-secure",
    default=True,
    show_default=True,
    help="Serve /metrics over HTTPS to callers the API server authenticates (TokenReview) and "
    "allows to get the non-resource URL /metrics (SubjectAccessReview); --no-metrics-secure "
    "serves plain HTTP to anyone, for local use.",
)
@click.option(
    "--metrics-cert-path",
    default=None,
    type=click.Path(file_okay=False, path_type=Path),
    help="Folder holding tls.crt and tls.key for /metrics (default: a self-signed certificate).",
)
@click.option(
    "--health-probe-bind-address",
    default=":8081",
    show_default=True,
    help="host:port for /healthz and /readyz, plain HTTP; '0' turns them off.  The same "
    "address as --metrics-bind-address serves all three on one port (with --no-metrics-secure).",
)
@click.option(
    "--kind-configmaps-namespace",
    default=None,
    help="Also serve kinds from ConfigMaps labelled stencil.dev/kind-bundle=true here.",
)
@click.option(
    "--revisions-namespace",
    default=None,
    help="Keep the kinds' revisions here (ControllerRevisions), so a rollout survives a restart "
    "[default: $POD_NAMESPACE; without it, in memory].",
)
@click.option(
    "--protected-namespaces",
    default=None,
    help="Namespaces no kind may write a child in, whatever its placement allows: comma-separated "
    "shell patterns, '' for none [default: kube-* and the engine's own, $POD_NAMESPACE and "
    "--kind-configmaps-namespace].",
)
@click.option(
    "--max-children",
    default=None,
    type=click.IntRange(min=1),
    help="Children one parent may have; a kind's placement.maxChildren may say fewer. Past it the "
    "parent is not applied and says TooManyChildren [default: 2000].",
)
@options.read_as(
    "The ServiceAccount of each parent's namespace (a cluster-scoped parent's: of the engine's) "
    "that references are read as, impersonated, where the kind's readAs names none."
)
@click.option(
    "--seed-key-secret",
    default=None,
    help="NAMESPACE/NAME of the Secret holding the key random_string draws with, made on first "
    "start [default: stencil-seed-key in $POD_NAMESPACE, else in --leader-elect-namespace, else "
    "in kube-system].",
)
@click.option("--leader-elect", is_flag=True, help="Reconcile only while holding a Lease.")
@click.option("--leader-elect-namespace", default=None, help="The Lease's namespace (default: the pod's).")
@click.option("--leader-elect-lease-name", default="stencil-leader", show_default=True)
@click.option("--leader-elect-identity", default=None, help="This replica's name (default: host + random).")
@click.option("--leader-elect-lease-duration", default=15.0, show_default=True)
@click.option("--leader-elect-renew-deadline", default=10.0, show_default=True)
@click.option("--leader-elect-retry-period", default=2.0, show_default=True)
@click.option(
    "--shards",
    is_flag=True,
    help="Share the parents among the replicas: each reconciles only those labelled with its "
    "identity; the leader assigns them (implies leader election for that role).",
)
@click.option(
    "--shard-identity",
    default=None,
    help="This replica's name among the shards (default: $POD_NAME, else the host name).",
)
@click.option(
    "--hold-kinds/--no-hold-kinds",
    default=True,
    show_default=True,
    help="Serve a kind only while this engine holds its Lease, so that two engines never serve one kind.",
)
@click.option(
    "--engine-identity",
    default=None,
    help="This engine's name on the kinds' Leases, shared by its replicas [default: the leader "
    "Lease's namespace/name with --leader-elect or --shards, else host + random].",
)
@click.option(
    "--heartbeat-lease",
    default=None,
    help="NAMESPACE/NAME of the Lease this engine renews as its heartbeat without leader election "
    "[default: stencil-engine.<engine identity> in the kinds' Lease namespace]; with it, the "
    "leader Lease is the heartbeat.",
)
@click.option("--heartbeat-lease-duration", default=60.0, show_default=True)
@click.option("--heartbeat-renew-deadline", default=40.0, show_default=True)
@click.option("--heartbeat-retry-period", default=20.0, show_default=True)
@click.option(
    "--kind-lease-namespace",
    default=None,
    help="Where the kinds' Leases are, one namespace every engine serving them sees [default: "
    "the first --namespace, else kube-system].",
)
def run(
    templates_dir: Path,
    kubeconfig: str | None,
    namespaces: tuple[str, ...],
    workers: int,
    resync: float,
    log_format: str,
    log_level: str,
    metrics_bind_address: str,
    metrics_secure: bool,
    metrics_cert_path: Path | None,
    health_probe_bind_address: str,
    kind_configmaps_namespace: str | None,
    revisions_namespace: str | None,
    protected_namespaces: str | None,
    max_children: int | None,
    read_as: str,
    seed_key_secret: str | None,
    leader_elect: bool,
    leader_elect_namespace: str | None,
    leader_elect_lease_name: str,
    leader_elect_identity: str | None,
    leader_elect_lease_duration: float,
    leader_elect_renew_deadline: float,
    leader_elect_retry_period: float,
    shards: bool,
    shard_identity: str | None,
    hold_kinds: bool,
    engine_identity: str | None,
    heartbeat_lease: str | None,
    heartbeat_lease_duration: float,
    heartbeat_renew_deadline: float,
    heartbeat_retry_period: float,
    kind_lease_namespace: str | None,
) -> None:
    """Run the engine against a cluster until SIGINT or SIGTERM."""
    import socket

    from engine.core.decisions.coordination import holding
    from engine.runtime.cluster import seedsecret, workload
    from engine.runtime.cluster.kube import Kube
    from engine.runtime.serving import manager
    from engine.runtime.telemetry import logs, observability, tracing

    logs.configure_logging("json" if log_format == "json" else "text", log_level)
    metrics, health = observability.Metrics(), observability.Health()
    probes = options.bind_address("--health-probe-bind-address", health_probe_bind_address)
    scrapes = options.bind_address("--metrics-bind-address", metrics_bind_address)
    stopping = stop_event()
    kube = Kube.auto(kubeconfig)
    kube.observe(metrics.answered)
    servers = _serve(kube, metrics, health, probes, scrapes, metrics_secure, metrics_cert_path)
    identity = (shard_identity or os.environ.get("POD_NAME") or socket.gethostname()).lower()
    leader_elect = leader_elect or shards  # with shards, the leader is the sharder
    home = _home(leader_elect_namespace)
    settings = manager.Options(
        workers=workers,
        resync=resync,
        namespaces=namespaces,
        metrics=metrics,
        tracer=tracing.from_environment(),  # the OTEL_* variables: each reconcile a trace
        bundle_namespace=kind_configmaps_namespace,
        revisions_namespace=revisions_namespace or os.environ.get("POD_NAMESPACE"),
        pod=workload.this_pod(),  # whose Deployment owns the revisions, asked of the API server
        run_workers=not leader_elect,
        held_kinds_only=hold_kinds and not shards,  # sharded, the sharder assigns only held kinds
        shard=identity if shards else None,
        protected_namespaces=_protected(protected_namespaces, kind_configmaps_namespace),
        max_children=max_children,
        read_as=(read_as, home),
        seed_key=seedsecret.SeedKey(kube, *_seed_secret(seed_key_secret, home)),
    )
    engine = manager.Engine(kube, templates_dir, settings)
    engine.start()
    lease_namespace = leader_elect_namespace or os.environ.get("POD_NAMESPACE") or "default"
    timings = (leader_elect_lease_duration, leader_elect_renew_deadline, leader_elect_retry_period)
    holds = heartbeat = None
    if hold_kinds:
        claims_namespace = holding.lease_namespace(kind_lease_namespace, namespaces)
        engine_id = holding.engine_identity(
            engine_identity, (lease_namespace, leader_elect_lease_name) if leader_elect else None
        )
        if leader_elect:  # the leader Lease is the engine's heartbeat
            beat, beat_timings = f"{lease_namespace}/{leader_elect_lease_name}", timings
        else:
            beat = heartbeat_lease or f"{claims_namespace}/{holding.heartbeat_name(engine_id)}"
            beat_timings = (heartbeat_lease_duration, heartbeat_renew_deadline, heartbeat_retry_period)
        holds = leases.kind_holds(
            kube,
            engine,
            metrics,
            namespace=claims_namespace,
            identity=engine_id,
            heartbeat=(beat, beat_timings[0]),
            timings=timings,
            sharded=shards,
        )
        if not leader_elect:  # this process is the whole engine; with leaders, the leader holds
            heartbeat = leases.heartbeat(kube, holds, metrics, stopping, beat, engine_id, beat_timings)
    campaign = _Campaign(kube, engine, metrics, stopping, lease_namespace, timings, holds)
    electors = [campaign.shard_member(identity)] if shards else []
    if leader_elect:
        electors.append(
            campaign.leader_elector(leader_elect_lease_name, leader_elect_identity, shards=shards)
        )
    _ready_until_stopped(engine, health, stopping)
    if holds is not None:  # every write of the kinds ends, then their claims are released,
        engine.stop()  # before the heartbeat or the leader's Lease
        holds.stop()
    if heartbeat is not None:
        heartbeat.stop(release=True)
    for elector in reversed(electors):  # the leader's Lease first, then the shard's
        elector.stop(release=True)
    engine.stop()
    for server in servers:
        server.shutdown()


def _home(lease_namespace: str | None) -> str:
    """The engine's namespace: its pod's or its Lease's, else kube-system, which no tenant's role reaches."""
    return os.environ.get("POD_NAMESPACE") or lease_namespace or "kube-system"


def _seed_secret(given: str | None, home: str) -> tuple[str, str]:
    """The seed key's Secret: ``given``, or the default in the engine's namespace, ``home``."""
    from engine.runtime.cluster import seedsecret

    if given is None:
        return home, seedsecret.SECRET_NAME
    namespace, slash, name = given.partition("/")
    if not (slash and namespace and name):
        raise click.BadParameter(f"{given!r} is not NAMESPACE/NAME", param_hint="--seed-key-secret")
    return namespace, name


def _ready_until_stopped(
    engine: manager.Engine, health: observability.Health, stopping: threading.Event
) -> None:
    """Mark the replica ready once its caches have synced, and unready once it is told to stop."""
    import gc

    while not stopping.wait(0.2):
        if not health.ready and engine.synced():
            health.mark_ready()  # a standby is ready too: its caches are warm
            gc.freeze()  # what is held by now (modules, templates, caches) is not walked again
    health.mark_unready("shutting down")


def _serve(
    kube: Kube,
    metrics: observability.Metrics,
    health: observability.Health,
    probes: tuple[str, int] | None,
    scrapes: tuple[str, int] | None,
    secure: bool,
    cert_path: Path | None,
) -> list[httpserver.Server]:
    """The probes in plain HTTP, and the metrics over TLS to callers the API server allows
    (``secure``) or in plain HTTP; on one port when both have the same address."""
    import socket

    from engine.runtime.telemetry import delegation, observability

    if probes is not None and probes == scrapes:
        if secure:
            raise click.UsageError(
                "--health-probe-bind-address and --metrics-bind-address are the same: the probes "
                "are plain HTTP and the metrics HTTPS (one port for both needs --no-metrics-secure)"
            )
        return [observability.serve(metrics, health, *probes)]  # local use: one plain port
    servers = []
    if probes is not None:
        servers.append(observability.serve(None, health, *probes))
    if scrapes is not None:
        gate = tls = None
        if secure:
            gate = delegation.Delegate(lambda path, body: kube.request("POST", path, body))
            tls = delegation.tls_context(cert_path, [socket.gethostname() or "localhost"])
        servers.append(observability.serve(metrics, None, *scrapes, gate=gate, tls=tls))
    return servers


def _protected(patterns: str | None, kind_configmaps_namespace: str | None) -> tuple[str, ...]:
    """The namespaces no kind may write a child in: ``patterns`` as given, else kube-* and the
    engine's own (a kind that could write there could write kinds and take its Lease)."""
    if patterns is not None:
        return tuple(p.strip() for p in patterns.split(",") if p.strip())
    own = (kind_configmaps_namespace, os.environ.get("POD_NAMESPACE"))
    return ("kube-*", *dict.fromkeys(n for n in own if n))


@dataclass(frozen=True)
class _Campaign:
    """The Leases a replica campaigns for: its shard's (``--shards``) and the leader's."""

    kube: Kube
    engine: manager.Engine
    metrics: observability.Metrics
    stopping: threading.Event
    namespace: str  # where the Leases are
    timings: tuple[float, float, float]  # lease duration, renew deadline, retry period
    holds: holding.KindHolds | None = None  # the kinds' claims, taken by the leader

    def shard_member(self, identity: str) -> leader.LeaderElector:
        """Hold this replica's shard Lease, started; its parents are reconciled while it is held."""
        from engine.runtime.serving import sharding

        duration, deadline, retry = self.timings
        holding = leases.Holding(
            "shard",
            f"holding the shard Lease; reconciling the parents assigned to {identity}",
            self.engine.run_workers,
            self.engine.stop,
            self.stopping,
        )
        self.engine.shard_members = sharding.Members(self.engine, namespace=self.namespace)
        member = sharding.member(
            self.kube,
            namespace=self.namespace,
            identity=identity,
            lease_duration=duration,
            renew_deadline=deadline,
            retry_period=retry,
            on_started=holding.started,
            on_stopped=holding.stopped,
        )
        member.start()
        return member

    def leader_elector(self, name: str, identity: str | None, *, shards: bool) -> leader.LeaderElector:
        """Campaign for the leader Lease ``name``, started: the leader reconciles, or with
        ``shards`` runs the sharder (each replica's own parents stop with its shard Lease)."""
        from engine.runtime.serving import leader, sharding

        def report(holding: bool) -> None:
            self.metrics.leading(name, holding)

        holds = self.holds
        if shards:
            sharder = sharding.Sharder(
                self.engine,
                namespace=self.namespace,
                metrics=self.metrics,
                serves=holds.holds if holds is not None else lambda gvk: True,
            )
            began = "became the leader; assigning parents to shards"
            work: Callable[[], object] = sharder.start
            end: Callable[[], object] = sharder.stop
        else:
            began = "became the leader; reconciling"
            work, end = self.engine.run_workers, self.engine.stop

        def begin() -> None:
            work()
            if holds is not None:
                holds.start()  # the kinds this engine holds are served from now on

        holding = leases.Holding("leader", began, begin, end, self.stopping, report)
        # A standby reports 0 from the start, so that a dashboard can tell a standby
        # from a replica that does not take part in the election at all.
        report(False)
        duration, deadline, retry = self.timings
        elector = leader.LeaderElector(
            self.kube,
            namespace=self.namespace,
            name=name,
            identity=identity or leader.default_identity(),
            lease_duration=duration,
            renew_deadline=deadline,
            retry_period=retry,
            on_started_leading=holding.started,
            on_stopped_leading=holding.stopped,
        )
        elector.start()
        return elector
