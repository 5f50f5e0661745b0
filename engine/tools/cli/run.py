"""``stencil run``: the engine against a cluster, optionally leader-elected, optionally sharded.

With ``--shards`` every replica holds a Lease of its own and reconciles only the parents
labelled with its name; the replica holding the leader Lease also runs the sharder, which
writes those labels (``engine.runtime.sharding``).
"""

from __future__ import annotations

from pathlib import Path

import click

from engine.tools.cli._common import main, stop_event

# Python's collector runs a young collection every 700 net allocations of containers, and a
# full one, walking every object the process holds, each time enough survivors pile up.  The
# objects decoded from the API server (a Deployment is some 150 dicts and lists) survive a few
# young collections on their way into the cache, so a cold start on 10,000 parents ran 20 full
# collections of about 80 ms each: 1.7 CPU seconds, and pauses a reconcile waits out.  With
# 50,000 they are gone before the collector looks; the cache holds bytes, which it never walks.
GC_YOUNG_THRESHOLD = 50_000


@main.command()
@click.option(
    "--templates",
    "templates_dir",
    default="templates",
    show_default=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Folder of kind folders.",
)
@click.option(
    "--kubeconfig",
    default=None,
    help="Kubeconfig to use (default: $KUBECONFIG, ~/.kube/config, or the in-cluster service account).",
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
    default=":8080",
    show_default=True,
    help="host:port for /metrics, /healthz and /readyz; '0' turns them off.",
)
@click.option(
    "--kind-configmaps-namespace",
    default=None,
    help="Also serve kinds from ConfigMaps labelled stencil.dev/kind-bundle=true here.",
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
    kind_configmaps_namespace: str | None,
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

    from engine.runtime import leader, manager, observability, sharding
    from engine.runtime.kube import Kube

    gc.set_threshold(GC_YOUNG_THRESHOLD, 20, 100)
    observability.configure_logging("json" if log_format == "json" else "text", log_level)
    log = logging.getLogger("stencil")
    metrics, health = observability.Metrics(), observability.Health()
    server = None
    if metrics_bind_address not in ("0", ""):
        host, _, port = metrics_bind_address.rpartition(":")
        server = observability.serve(metrics, health, host or "0.0.0.0", int(port))
    stopping = stop_event()
    kube = Kube.auto(kubeconfig)
    lease_namespace = leader_elect_namespace or os.environ.get("POD_NAMESPACE") or "default"
    identity = (shard_identity or os.environ.get("POD_NAME") or socket.gethostname()).lower()
    leader_elect = leader_elect or shards  # with shards, the leader is the sharder
    options = manager.Options(
        workers=workers,
        resync=resync,
        namespaces=namespaces,
        metrics=metrics,
        bundle_namespace=kind_configmaps_namespace,
        run_workers=not leader_elect,
        shard=identity if shards else None,
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
    if server is not None:
        server.shutdown()
