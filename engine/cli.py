"""The ``stencil`` command line: the outermost layer, wiring options to the engine."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from engine import controller


@click.group()
@click.version_option(package_name="stencil-operator")
def main() -> None:
    """Stencil: a Kubernetes operator engine where a kind is a folder of templates."""


# -- the local control plane ------------------------------------------------------


@main.group()
def cluster() -> None:
    """A real local control plane (etcd, kube-apiserver, and on request controllers and kwok nodes)."""


@cluster.command()
@click.option("--nodes", default=0, show_default=True, type=click.IntRange(min=0),
              help="Simulated nodes (kwok); more than 0 also runs the controller-manager and scheduler.")
@click.option("--kubeconfig", default=None, type=click.Path(dir_okay=False, path_type=Path),
              help="Write the kubeconfig here once the cluster is ready (removed on stop).")
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


# -- the engine -----------------------------------------------------------------


def _engine_options(workers: int, resync: float, namespace: str | None) -> controller.Options:
    from engine import controller

    return controller.Options(workers=workers, resync=resync, namespace=namespace)


@main.command()
@click.option("--templates", "templates_dir", default="templates", show_default=True,
              type=click.Path(file_okay=False, path_type=Path), help="Folder of kind folders.")
@click.option("--kubeconfig", default=None, help="Kubeconfig to use (default: $KUBECONFIG, ~/.kube/config, "
              "or the in-cluster service account).")
@click.option("--namespace", default=None, help="Watch one namespace only (default: all).")
@click.option("--workers", default=4, show_default=True, help="Concurrent reconciles per kind.")
@click.option("--resync", default=600.0, show_default=True, help="Seconds between full resyncs from the cache.")
@click.option("--log-format", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--log-level", default="INFO", show_default=True)
def run(templates_dir: Path, kubeconfig: str | None, namespace: str | None, workers: int, resync: float,
        log_format: str, log_level: str) -> None:
    """Run the engine against a cluster until SIGINT or SIGTERM."""
    from engine import controller
    from engine.kube import Kube

    _configure_logging(log_format, log_level)
    engine = controller.Engine(Kube.auto(kubeconfig), templates_dir, _engine_options(workers, resync, namespace))
    engine.start()
    _wait_for_signal()
    engine.stop()


def _configure_logging(fmt: str, level: str) -> None:
    import logging

    try:
        from engine import observability
    except ImportError:
        logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s %(message)s")
        return
    observability.configure_logging(fmt, level)  # type: ignore[arg-type]


def _wait_for_signal() -> None:
    import signal
    import threading

    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    while not stop.wait(0.5):
        pass


@main.command()
@click.option("--templates", "templates_dir", default="templates", show_default=True,
              type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--crds", "crds_dir", default="crds", show_default=True,
              type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--nodes", default=1, show_default=True, help="Simulated nodes (kwok).")
@click.option("--namespace", default="default", show_default=True, help="Where the examples are applied.")
@click.option("--kubeconfig", default=None, type=click.Path(dir_okay=False, path_type=Path),
              help="Also write the local cluster's kubeconfig here.")
def dev(templates_dir: Path, crds_dir: Path, nodes: int, namespace: str, kubeconfig: Path | None) -> None:
    """Local cluster + CRDs + engine + every kind's examples, with their conditions shown live."""
    import logging
    import signal
    import threading
    import time

    from engine import controller, kinds, manifests
    from engine.kube import Kube
    from engine.localcluster.plane import LocalCluster

    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    click.echo(f"starting a local control plane with {nodes} simulated node(s)...")
    with LocalCluster(nodes, kubeconfig=kubeconfig) as cluster:
        click.echo(f"API server {cluster.server}; kubeconfig {cluster.kubeconfig}")
        kube = Kube.from_kubeconfig(str(cluster.kubeconfig))
        click.echo(f"installed CRDs: {', '.join(manifests.install_crds(kube, crds_dir)) or 'none'}")
        engine = controller.Engine(kube, templates_dir, controller.Options(workers=2, resync=60.0))
        engine.start()
        loaded, broken = kinds.load_kinds(templates_dir)
        for name, b in broken.items():
            click.echo(f"kind {name} is broken: {b.error}", err=True)
        for kind in loaded.values():
            applied = manifests.apply_all(kube, manifests.read(kind.examples), namespace)
            click.echo(f"applied {len(applied)} example(s) of {kind.kind}")
        click.echo("watching conditions (Ctrl-C to stop)")
        stop = threading.Event()
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: stop.set())
        shown: dict[str, str] = {}
        while not stop.wait(0.5):
            for line_key, line in _condition_lines(engine):
                if shown.get(line_key) != line:
                    shown[line_key] = line
                    click.echo(f"{time.strftime('%H:%M:%S')} {line}")
        click.echo("stopping")
        engine.stop()


def _condition_lines(engine: controller.Engine) -> list[tuple[str, str]]:
    lines = []
    for ctrl in list(engine.controllers.values()):
        for parent in ctrl.parents.list():
            meta = parent["metadata"]
            who = f"{parent['kind']} {meta.get('namespace', '')}/{meta['name']}".replace(" /", " ")
            for cond in parent.get("status", {}).get("conditions", []):
                text = f"{cond['status']:<7} {cond.get('reason', '')}"
                if cond.get("message"):
                    text += f": {cond['message']}"
                lines.append((f"{who} {cond['type']}", f"{who} {cond['type']:<22} {text}"))
    return lines
