"""``stencil dev``: a local cluster, the CRDs, the engine and every example, watched live."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from engine.tools.cli._common import crds_option, main, stop_event, templates_option

if TYPE_CHECKING:
    from engine.runtime import manager


@main.command()
@templates_option
@crds_option
@click.option("--nodes", default=1, show_default=True, help="Simulated nodes (kwok).")
@click.option("--namespace", default="default", show_default=True, help="Where the examples are applied.")
@click.option(
    "--kubeconfig",
    default=None,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write the local cluster's kubeconfig here.",
)
def dev(templates_dir: Path, crds_dir: Path, nodes: int, namespace: str, kubeconfig: Path | None) -> None:
    """Local cluster + CRDs + engine + every kind's examples, with their conditions shown live."""
    import logging
    import time

    from engine.core import kinds
    from engine.localcluster.plane import LocalCluster
    from engine.runtime import manager
    from engine.runtime.kube import Kube
    from engine.tools import manifests

    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    click.echo(f"starting a local control plane with {nodes} simulated node(s)...")
    with LocalCluster(nodes, kubeconfig=kubeconfig) as cluster:
        click.echo(f"API server {cluster.server}; kubeconfig {cluster.kubeconfig}")
        kube = Kube.from_kubeconfig(str(cluster.kubeconfig))
        click.echo(f"installed CRDs: {', '.join(manifests.install_crds(kube, crds_dir)) or 'none'}")
        engine = manager.Engine(kube, templates_dir, manager.Options(workers=2, resync=60.0))
        engine.start()
        loaded, broken = kinds.load_kinds(templates_dir)
        for name, b in broken.items():
            click.echo(f"kind {name} is broken: {b.error}", err=True)
        for kind in loaded.values():
            applied = manifests.apply_all(kube, manifests.read(kind.examples), namespace)
            click.echo(f"applied {len(applied)} example(s) of {kind.kind}")
        click.echo("watching conditions (Ctrl-C to stop)")
        stop = stop_event()
        shown: dict[str, str] = {}
        while not stop.wait(0.5):
            for line_key, line in _condition_lines(engine):
                if shown.get(line_key) != line:
                    shown[line_key] = line
                    click.echo(f"{time.strftime('%H:%M:%S')} {line}")
        click.echo("stopping")
        engine.stop()


def _condition_lines(engine: manager.Engine) -> list[tuple[str, str]]:
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
