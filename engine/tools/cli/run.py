"""``stencil run``: the engine against a cluster, optionally leader-elected, optionally sharded.

With ``--shards`` every replica holds a Lease of its own and reconciles only the parents
labelled with its name; the replica holding the leader Lease also runs the sharder, which
writes those labels (``engine.runtime.sharding``).
"""

from __future__ import annotations

from pathlib import Path

import click

from engine.tools.cli import options
from engine.tools.cli._common import main, stop_event

# Python's collector runs a young collection every 700 net allocations of containers, and a
# full one, walking every object the process holds, each time enough survivors pile up.  The
# objects decoded from the API server (a Deployment is some 150 dicts and lists) survive a few
# young collections on their way into the cache, so a cold start on 10,000 parents ran 20 full
# collections of about 80 ms each: 1.7 CPU seconds, and pauses a reconcile waits out.  With
# 50,000 they are gone before the collector looks; the cache holds bytes, which it never walks.
GC_YOUNG_THRESHOLD = 50_000


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
    "--protected-namespaces",
    default=None,
    help="Namespaces no kind may write a child in, whatever its placement allows: comma-separated "
    "shell patterns, '' for none [default: kube-* and the engine's own, $POD_NAMESPACE and "
    "--kind-configmaps-namespace].",
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
    protected_namespaces: str | None,
    leader_elect: bool,
    leader_elect_namespace: str | None,
    leader_elect_lease_name: str,
    leader_elect_identity: str | None,
    leader_elect_lease_duration: float,
    leader_elect_renew_deadline: float,
    leader_elect_retry_period: float,
    shards: bool,
    shard_identity: str | None,
) -> None:
    """Run the engine against a cluster until SIGINT or SIGTERM."""
    import gc
    import logging
    import os
    import socket

    from engine.runtime import delegation, leader, logs, manager, observability, sharding
    from engine.runtime.kube import Kube

    gc.set_threshold(GC_YOUNG_THRESHOLD, 20, 100)
    logs.configure_logging("json" if log_format == "json" else "text", log_level)
    log = logging.getLogger("stencil")
    metrics, health = observability.Metrics(), observability.Health()
    probes = _address("--health-probe-bind-address", health_probe_bind_address)
    scrapes = _address("--metrics-bind-address", metrics_bind_address)
    stopping = stop_event()
    kube = Kube.auto(kubeconfig)
    servers = []
    if probes is not None and probes == scrapes:
        if metrics_secure:
            raise click.UsageError(
                "--health-probe-bind-address and --metrics-bind-address are the same: the probes "
                "are plain HTTP and the metrics HTTPS (one port for both needs --no-metrics-secure)"
            )
        servers.append(observability.serve(metrics, health, *probes))  # local use: one plain port
    else:
        if probes is not None:
            servers.append(observability.serve(None, health, *probes))
        if scrapes is not None:
            gate = tls = None
            if metrics_secure:
                gate = delegation.Delegate(lambda path, body: kube.request("POST", path, body))
                tls = delegation.tls_context(metrics_cert_path, [socket.gethostname() or "localhost"])
            servers.append(observability.serve(metrics, None, *scrapes, gate=gate, tls=tls))
    lease_namespace = leader_elect_namespace or os.environ.get("POD_NAMESPACE") or "default"
    identity = (shard_identity or os.environ.get("POD_NAME") or socket.gethostname()).lower()
    leader_elect = leader_elect or shards  # with shards, the leader is the sharder
    # A kind that could write into the engine's own namespace could write kinds and take its Lease.
    own = (kind_configmaps_namespace, os.environ.get("POD_NAMESPACE"))
    protected = (
        ("kube-*", *dict.fromkeys(n for n in own if n))
        if protected_namespaces is None
        else tuple(p.strip() for p in protected_namespaces.split(",") if p.strip())
    )
    options = manager.Options(
        workers=workers,
        resync=resync,
        namespaces=namespaces,
        metrics=metrics,
        bundle_namespace=kind_configmaps_namespace,
        run_workers=not leader_elect,
        shard=identity if shards else None,
        protected_namespaces=protected,
    )
    engine = manager.Engine(kube, templates_dir, options)
    engine.start()
    elector = member = None
    sharder = sharding.Sharder(engine, namespace=lease_namespace, metrics=metrics) if shards else None
    if shards:

        def holding() -> None:
            log.info("holding the shard Lease; reconciling the parents assigned to %s", identity)
            engine.run_workers()

        def not_holding() -> None:
            if not stopping.is_set():
                # Its Lease may expire any moment and its parents go to others: no reconcile may finish.
                log.error("lost the shard Lease; exiting")
                os._exit(1)
            engine.stop()  # SIGTERM: reconciles under way finish before the Lease is released

        member = sharding.member(
            kube,
            namespace=lease_namespace,
            identity=identity,
            lease_duration=leader_elect_lease_duration,
            renew_deadline=leader_elect_renew_deadline,
            retry_period=leader_elect_retry_period,
            on_started=holding,
            on_stopped=not_holding,
        )
        member.start()
    if leader_elect:

        def started() -> None:
            metrics.leading(leader_elect_lease_name, True)
            if sharder is not None:
                log.info("became the leader; assigning parents to shards")
                sharder.start()
                return
            log.info("became the leader; reconciling")
            engine.run_workers()

        def stopped() -> None:
            # Like controller-runtime: a replica that lost its Lease stops writing and exits,
            # to start again as a clean standby.
            metrics.leading(leader_elect_lease_name, False)
            if not stopping.is_set():
                log.error("lost the leader Lease; exiting")
                os._exit(1)  # another replica may already lead: no reconcile may finish now
            if sharder is not None:
                sharder.stop()
                return  # this replica's own parents stop with its shard Lease
            engine.stop()  # SIGTERM: reconciles under way finish before the Lease is released

        # A standby reports 0 from the start, so that a dashboard can tell a standby
        # from a replica that does not take part in the election at all.
        metrics.leading(leader_elect_lease_name, False)
        elector = leader.LeaderElector(
            kube,
            namespace=lease_namespace,
            name=leader_elect_lease_name,
            identity=leader_elect_identity or leader.default_identity(),
            lease_duration=leader_elect_lease_duration,
            renew_deadline=leader_elect_renew_deadline,
            retry_period=leader_elect_retry_period,
            on_started_leading=started,
            on_stopped_leading=stopped,
        )
        elector.start()
    while not stopping.wait(0.2):
        if not health.ready and engine.synced():
            health.mark_ready()  # a standby is ready too: its caches are warm
            gc.freeze()  # what is held by now (modules, templates, caches) is not walked again
    health.mark_unready("shutting down")
    if elector is not None:
        elector.stop(release=True)
    if member is not None:
        member.stop(release=True)
    engine.stop()
    for server in servers:
        server.shutdown()


def _address(option: str, value: str) -> tuple[str, int] | None:
    """``host:port`` (host may be empty: every address) as a bind address, None for '0' (off)."""
    if value in ("0", ""):
        return None
    host, _, port = value.rpartition(":")
    if not port.isdigit() or not 0 <= int(port) <= 65535:
        raise click.BadParameter(f"{value!r} is not host:port", param_hint=option)
    return host.strip("[]") or "0.0.0.0", int(port)
