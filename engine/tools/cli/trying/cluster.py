"""``stencil cluster``: a real local control plane for trying kinds and running tests."""

from __future__ import annotations

from pathlib import Path

import click

from engine.tools.cli import options
from engine.tools.cli._common import main


@main.group()
def cluster() -> None:
    """A real local control plane (etcd, kube-apiserver, and on request controllers and kwok nodes)."""


@cluster.command()
@click.option(
    "--nodes",
    default=0,
    show_default=True,
    type=click.IntRange(min=0),
    help="Simulated nodes (kwok); more than 0 also runs the controller-manager and scheduler.",
)
@options.kubeconfig_to_write("Write the kubeconfig here once the cluster is ready (removed on stop).")
def up(nodes: int, kubeconfig: Path | None) -> None:
    """Run a local cluster in the foreground until Ctrl-C or SIGTERM."""
    import logging

    from engine.localcluster import BuildError, ClusterError, LocalCluster

    logging.basicConfig(level=logging.INFO, format="%(message)s")
    try:
        with LocalCluster(nodes, kubeconfig=kubeconfig) as local:
            click.echo(f"API server {local.server}")
            click.echo(f"export KUBECONFIG={local.kubeconfig}")
            click.echo("running; Ctrl-C to stop")
            local.wait()
    except KeyboardInterrupt:
        click.echo("stopped")
    except (BuildError, ClusterError) as exc:
        raise click.ClickException(str(exc)) from exc


@cluster.command()
def prepare() -> None:
    """Find or build the control-plane binaries (cached), and print their paths."""
    from engine.localcluster import binaries

    try:
        paths = binaries.ensure(binaries.ALL_BINARIES)
    except binaries.BuildError as exc:
        raise click.ClickException(str(exc)) from exc
    for name, path in paths.items():
        click.echo(f"{name}\t{path}")
