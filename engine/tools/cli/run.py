"""``stencil run``: the engine against a cluster, optionally leader-elected."""

from __future__ import annotations

from pathlib import Path

import click

from engine.tools.cli._common import main, stop_event


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
) -> None:
    """Run the engine against a cluster until SIGINT or SIGTERM."""
    import logging
    import os

    from engine.runtime import leader, manager, observability
    from engine.runtime.kube import Kube

    observability.configure_logging("json" if log_format == "json" else "text", log_level)
    log = logging.getLogger("stencil")
    metrics, health = observability.Metrics(), observability.Health()
    server = None
    if metrics_bind_address not in ("0", ""):
        host, _, port = metrics_bind_address.rpartition(":")
        server = observability.serve(metrics, health, host or "0.0.0.0", int(port))
    stopping = stop_event()
    kube = Kube.auto(kubeconfig)
    options = manager.Options(
        workers=workers,
        resync=resync,
        namespaces=namespaces,
        metrics=metrics,
        bundle_namespace=kind_configmaps_namespace,
        run_workers=not leader_elect,
    )
    engine = manager.Engine(kube, templates_dir, options)
    engine.start()
    elector = None
    if leader_elect:
        lease_namespace = leader_elect_namespace or os.environ.get("POD_NAMESPACE") or "default"

        def started() -> None:
            metrics.leading(leader_elect_lease_name, True)
            log.info("became the leader; reconciling")
            engine.run_workers()

        def stopped() -> None:
            # Like controller-runtime: a replica that lost its Lease stops writing and exits,
            # to start again as a clean standby.
            metrics.leading(leader_elect_lease_name, False)
            if not stopping.is_set():
                log.error("lost the leader Lease; exiting")
                os._exit(1)  # another replica may already lead: no reconcile may finish now
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
    health.mark_unready("shutting down")
    if elector is not None:
        elector.stop(release=True)
    engine.stop()
    if server is not None:
        server.shutdown()
