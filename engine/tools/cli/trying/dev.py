"""``stencil dev``: a local cluster, the CRDs, the engine and every example, watched live.

Each kind's examples are applied after their fixtures (``tests/fixtures.yaml``, then an
example's own ``tests/<example>.fixtures.yaml``), as ``stencil test`` applies them, so an
example that needs a ConfigMap or a Secret to exist finds it.

On a terminal the parents are one table, redrawn in place (``rich``): a row per
parent with Ready, its reason, what it waits for and its age, under the lint
findings of the kinds, which are gathered again whenever a file of a kind folder
or of the CRDs changes.  Piped, the output is a stream of timestamped lines, one
each time a condition changes, so a log or a script reads what it always did.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import click

from engine.tools import parents
from engine.tools.cli import options
from engine.tools.cli._common import main, stop_event

if TYPE_CHECKING:
    from rich.console import Group

    from engine.core.model import kinds
    from engine.runtime.cluster.kube import Kube
    from engine.runtime.serving import manager

REFRESH = 0.5  # seconds between looks at the parents and at the kind folders' files


@main.command()
@options.templates()
@options.crds()
@click.option("--nodes", default=1, show_default=True, help="Simulated nodes (kwok).")
@options.namespace("default", "Where the examples are applied.")
@options.kubeconfig_to_write("Also write the local cluster's kubeconfig here.")
def dev(templates_dir: Path, crds_dir: Path, nodes: int, namespace: str, kubeconfig: Path | None) -> None:
    """Local cluster + CRDs + engine + every kind's examples (after their tests/ fixtures), with
    their conditions shown live."""
    import logging

    from engine.localcluster.plane import LocalCluster
    from engine.runtime.cluster.kube import Kube

    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    click.echo(f"starting a local control plane with {nodes} simulated node(s)...")
    with LocalCluster(nodes, kubeconfig=kubeconfig) as cluster:
        click.echo(f"API server {cluster.server}; kubeconfig {cluster.kubeconfig}")
        kube = Kube.from_kubeconfig(str(cluster.kubeconfig))
        engine = serve(kube, templates_dir, crds_dir, namespace)
        stop = stop_event()
        if sys.stdout.isatty():
            _watch_table(engine, templates_dir, crds_dir, stop)
        else:
            watch_lines(engine, stop)
        click.echo("stopping")
        engine.stop()


def serve(kube: Kube, templates_dir: Path, crds_dir: Path, namespace: str) -> manager.Engine:
    """What ``stencil dev`` does on a plane that is up, saying each step: the kinds' CRDs installed,
    the engine started on the kinds, and their examples applied after their fixtures.  The engine
    is running when this returns; the caller stops it."""
    from engine.core.model import kinds
    from engine.runtime.serving import manager
    from engine.tools import manifests

    loaded, broken = kinds.load_kinds(templates_dir)
    installed = manifests.install_crds(kube, crds_dir, kinds_=loaded.values())
    click.echo(f"installed CRDs: {', '.join(installed) or 'none'}")
    if readers := manifests.grant_readers(kube, loaded.values(), namespace):
        click.echo(f"let {', '.join(readers)} read the kinds' references in {namespace}")
    engine = manager.Engine(kube, templates_dir, manager.Options(workers=2, resync=60.0))
    engine.start()
    for name, b in broken.items():
        click.echo(f"kind {name} is broken: {b.error}", err=True)
    for kind in loaded.values():
        applied = manifests.apply_all(kube, manifests.read(applied_files(kind)), namespace)
        click.echo(f"applied {len(applied)} object(s) of {kind.kind}'s examples and fixtures")
    return engine


def applied_files(kind: kinds.Kind) -> list[Path]:
    """The files ``stencil dev`` applies for ``kind``, in order and each once: before each
    example, its fixtures as ``stencil test`` finds them (the kind's, then the example's own)."""
    from engine.tools.kindtest import examples

    files: list[Path] = []
    for path in kind.examples:
        for file in [*examples.Example(kind, path).fixtures, path]:
            if file not in files:  # the kind's fixtures come before the first example only
                files.append(file)
    return files


# -- piped: a line per change -------------------------------------------------------------------


def watch_lines(engine: manager.Engine, stop: threading.Event) -> None:
    """Until ``stop`` is set, a timestamped line each time a condition of a parent changes."""
    import time

    click.echo("watching conditions (Ctrl-C to stop)")
    shown: dict[str, str] = {}
    while not stop.wait(REFRESH):
        for line_key, line in _condition_lines(engine):
            if shown.get(line_key) != line:
                shown[line_key] = line
                click.echo(f"{time.strftime('%H:%M:%S')} {line}")


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


# -- on a terminal: one table, redrawn ---------------------------------------------------------

_READY_STYLE = {"True": "green", "False": "red"}


def view(rows: Sequence[parents.Row], findings: Sequence[str]) -> Group:
    """What the terminal shows: the lint findings, then one row per parent."""
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    table = Table(title="parents (Ctrl-C to stop)", title_justify="left", expand=True)
    # On a narrow terminal the name, the reason and what Ready waits for are folded onto more lines,
    # never cut, each keeping a width a word of it fits.
    table.add_column("KIND", no_wrap=True)
    table.add_column("NAME", overflow="fold", ratio=2, min_width=12)
    table.add_column("READY", no_wrap=True)
    table.add_column("REASON", overflow="fold", ratio=2, min_width=12)
    table.add_column("WAITING ON", overflow="fold", ratio=3, min_width=16)
    table.add_column("AGE", justify="right", no_wrap=True)
    for row in rows:
        ready = Text(row.ready, style=_READY_STYLE.get(row.ready, "yellow"))
        table.add_row(row.kind, row.name, ready, row.reason, row.blocking, row.age)
    lint = Text("\n".join(findings), style="yellow") if findings else Text("lint: no findings", style="dim")
    return Group(lint, table)


def lint_findings(templates_dir: Path, crds_dir: Path) -> list[str]:
    """The lint findings of the kinds served, one line each (``file:line:col: severity: message``)."""
    try:
        from engine.core.model import kinds
        from engine.tools import linter

        findings = linter.lint(kinds.kind_folders(templates_dir), crds_dir=crds_dir)
    except Exception as error:  # a linter that fails must not take the live view down with it
        return [f"lint failed: {type(error).__name__}: {error}"]
    return [str(finding) for finding in findings]


def folder_digests(templates_dir: Path, crds_dir: Path) -> dict[str, str]:
    """A digest of each kind folder and of the CRDs: the lint is run again when one changes."""
    from engine.core.model import kinds

    folders = kinds.kind_folders(templates_dir) if templates_dir.is_dir() else []
    # The kinds' own digest of a folder: what makes the engine serve a kind again.
    return {str(folder): kinds.digest(folder) for folder in [*folders, crds_dir] if folder.is_dir()}


def _watch_table(engine: manager.Engine, templates_dir: Path, crds_dir: Path, stop: threading.Event) -> None:
    from rich.live import Live

    digests: dict[str, str] | None = None
    findings: list[str] = []
    with Live(view([], findings), auto_refresh=False, transient=False) as live:
        while not stop.wait(REFRESH):
            current = folder_digests(templates_dir, crds_dir)
            if current != digests:
                digests, findings = current, lint_findings(templates_dir, crds_dir)
            listed = [parent for ctrl in list(engine.controllers.values()) for parent in ctrl.parents.list()]
            live.update(view(parents.rows(listed, datetime.now(UTC)), findings), refresh=True)
