"""``stencil migrate KIND``: every stored object of a CRD rewritten at its storage version.

What kube-storage-version-migrator does, for one CRD: list its objects a page at a time, write
each back as it was read (``engine.tools.migration``, deciding with
``engine.core.offline.migration``), record the progress after each page in a ConfigMap, and at
the end trim the CRD's ``status.storedVersions`` to the storage version, so that an older
version may leave ``spec.versions``.  A progress bar on a terminal, a line a page otherwise.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import click

from engine.tools.cli import options
from engine.tools.cli._common import main

if TYPE_CHECKING:
    from engine.core.offline.migration import Counts, Progress, Target


@main.command("migrate")
@click.argument("kind")
@options.kubeconfig("Kubeconfig (default: $KUBECONFIG or ~/.kube/config).")
@options.context()
@click.option(
    "--state-namespace",
    default=None,
    help="Namespace of the ConfigMap that records the progress [default: the context's namespace, "
    "else default].",
)
@click.option(
    "--workers",
    default=8,
    show_default=True,
    type=click.IntRange(1, 32),
    help="Objects written back at once.",
)
@click.option("--dry-run", is_flag=True, help="Say what would be rewritten and trimmed; write nothing.")
def migrate(
    kind: str,
    kubeconfig: str | None,
    context: str | None,
    state_namespace: str | None,
    workers: int,
    dry_run: bool,
) -> None:
    """Rewrite every stored object of a CRD at its storage version, then trim its storedVersions.

    KIND is a kind folder (the CRD serving its parent) or a CRD's name
    (networks.samplecrd.k8s.io).  Each object is written back as it was read,
    its resourceVersion included: the API server stores it at the storage
    version, and leaves etcd alone where it is stored so already.  An object
    written meanwhile (409) or deleted (404) is done; any other refusal stops the
    run with the object's name.  The progress is recorded after each page of 500
    in the ConfigMap stencil-migrate-<CRD> of --state-namespace, so a run that is
    stopped goes on where it was when run again; a run that finishes deletes it.
    Then status.storedVersions is trimmed to the storage version.
    """
    from engine.core.offline import migration as decided
    from engine.runtime.cluster import contexts
    from engine.runtime.cluster.kube import Kube
    from engine.tools import migration

    namespace = state_namespace or contexts.namespace(kubeconfig, context)
    with contextlib.closing(Kube.auto(kubeconfig, context)) as kube:
        crd = decided.target(migration.crd(kube, kind))
        state = migration.State(kube, namespace, crd.name)
        begun = decided.start(crd, state.read(), state.unreadable)
        if dry_run:
            left, expired = migration.remaining(kube, crd, begun.progress)
            _dry_run(crd, begun.note, left, expired)
            return
        _say(f"{crd.name}: rewriting its objects at {crd.storage}; {begun.note} ({state.where})")
        began = time.monotonic()
        with _display(begun.progress.counts.done) as (note, paged):
            report = migration.run(kube, crd, state, begun.progress, workers, note, paged)
        seconds = time.monotonic() - began
        removed = migration.trim(kube, crd)
        state.delete()
    counts = report.progress.counts
    _say(f"{crd.name}: {counts.done} objects stored at {crd.storage}: {_counted(counts)}")
    _say(f"this run wrote back {report.handled} objects in {seconds:.1f}s")
    if removed:
        _say(f"status.storedVersions: trimmed {', '.join(removed)}; now [{crd.storage}]")
    else:
        _say(f"status.storedVersions: already [{crd.storage}], nothing to trim")


def _dry_run(crd: Target, note: str, left: int | None, expired: bool) -> None:
    count = "every object" if left is None else f"{left} objects"
    _say(f"{crd.name}: would write back {count} at {crd.storage}; {note}")
    if expired:
        _say("the recorded continue token has expired: the run would list from the first object")
    others = [v for v in crd.stored if v != crd.storage]
    if others or crd.stored != (crd.storage,):
        _say(f"would trim status.storedVersions [{', '.join(crd.stored)}] to [{crd.storage}]")
    else:
        _say(f"status.storedVersions: already [{crd.storage}], nothing to trim")


def _counted(counts: Counts) -> str:
    return (
        f"{counts.rewritten} rewritten, {counts.unchanged} already stored so, "
        f"{counts.conflicted} written since they were listed, {counts.gone} gone"
    )


def _say(line: str) -> None:
    click.echo(line)
    sys.stdout.flush()  # a line a page, read by whoever watches a run that may be killed


Note = Callable[[str], None]
Paged = Callable[["Progress", int | None], None]


@contextlib.contextmanager
def _display(done: int) -> Iterator[tuple[Note, Paged]]:
    """Where a run's notes and pages are shown: a progress bar on a terminal, else a line each."""
    if not sys.stdout.isatty():

        def line(progress: Progress, total: int | None) -> None:
            _say(f"{progress.counts.done}/{'?' if total is None else total}: {_counted(progress.counts)}")

        yield _say, line
        return
    from rich import progress as bars

    columns = (
        bars.TextColumn("rewriting"),
        bars.BarColumn(),
        bars.MofNCompleteColumn(),
        bars.TimeRemainingColumn(),
    )
    with bars.Progress(*columns) as bar:
        task = bar.add_task("rewriting", total=None, completed=done)

        def advance(progress: Progress, total: int | None) -> None:
            bar.update(task, completed=progress.counts.done, total=total)

        yield bar.console.print, advance
