"""Changing a kind: ``stencil plan`` before, ``stencil rollout`` during and after.

``stencil plan KIND_DIR`` shows what a kind folder would change across every parent of its
kind, before it is loaded.  ``stencil rollout status|resume|undo KIND`` read and write the
kind's ``KindRollout`` (``engine.runtime.reconciling.revisions``), as ``kubectl rollout`` does a
Deployment: ``status`` prints what the engine says of the rollout, ``resume`` clears
``spec.paused`` and gives the parents that were moving their deadline again, ``undo`` moves
every parent back to the previous revision (or ``--to-revision``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from engine.tools.cli import options
from engine.tools.cli._common import main, opened_lists, read_crs

if TYPE_CHECKING:
    from engine.core.offline import crdchanges, fleetreport
    from engine.tools import apicheck

# Exit codes, documented in `stencil plan --help` and docs/plan.md.
CHANGES = 1  # with --exit-code: some parent would change
BAD_INPUT = 2  # the plan could not be made: bad input, an unreachable cluster
BROKEN = 3  # some parent would fail to render, or a sampled apply was refused
API_BREAKING = 4  # the kind's new CRD would break objects the installed one stored


@main.command("plan")
@click.argument("kind_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@options.cr_files(
    "Plan these parents, as `kubectl get -o yaml` prints them (a List, or one object a document; "
    "repeatable), without a cluster; other objects in the files are read as their children."
)
@options.observed(
    "With -f: the parents' children as `kubectl get -o yaml` prints them (repeatable) "
    "[default: none, so every child counts as created].",
    multiple=True,
)
@options.namespace(
    None, "Only the parents in this namespace [default: all]; with -f, that of a CR naming none.", short=True
)
@options.crds(
    "CRDs giving the parent kind its defaults and validation with -f, and its hand-written CRD to "
    "compare with the installed one "
    "[default: the first of KIND_DIR/crds/ and crds/ beside the templates folder that holds it].",
    default=None,
)
@click.option(
    "--installed-crd",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="Compare the kind's new CRD with this one (as `kubectl get crd NAME -o yaml` prints it) "
    "[default: the cluster's; with -f, none].",
)
@options.kubeconfig("Kubeconfig (default: $KUBECONFIG or ~/.kube/config).")
@click.option("--format", "output", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option(
    "--sample",
    default=5,
    show_default=True,
    type=click.IntRange(min=0),
    help="Applies a server dry run is asked about, per distinct shape of change (kind and fields).",
)
@click.option(
    "--exit-code", is_flag=True, help="Exit 1 when some parent would change, as `git diff --exit-code`."
)
@options.seed_key_secret()
def plan(
    kind_dir: Path,
    files: tuple[Path, ...],
    observed_files: tuple[Path, ...],
    namespace: str | None,
    crds_dir: Path | None,
    installed_crd: Path | None,
    kubeconfig: str | None,
    output: str,
    sample: int,
    exit_code: bool,
    seed_key_secret: str,
) -> None:
    """Show what KIND_DIR would change for every parent of its kind, summed up for a review.

    Every live parent of the kind (read-only, as the kubeconfig's user) is
    rendered with KIND_DIR and compared with its live children: how many parents
    change, which child fields change for how many, which parents fail to render
    (file, line, message), which children would be created or pruned, and what
    the API server refuses in a dry run of a sample of the applies.  With -f, the
    parents (and their children) come from files and no cluster is contacted.

    First, the kind's new CRD (what `stencil crd` writes, or its hand-written file)
    is compared with the installed one (or --installed-crd), version by version: a
    change that would make stored objects lose data or no longer validate (a field
    removed, a type narrowed, a new required field, an enum or bound narrowed) is
    refused, naming the field; add a version for it instead.

    Exits 0 when the plan is made and no parent would fail; 1 with --exit-code
    when some parent would change; 2 when the plan cannot be made (bad input, no
    cluster); 3 when some parent would fail to render or a sampled apply was refused;
    4 when the new CRD would break stored objects (before 3).
    """
    from engine.core.model import errors

    if observed_files and not files:
        raise click.UsageError("--observed gives the children of the parents of -f files: give those too")
    try:
        if files:
            summary = _offline(kind_dir, files, observed_files, namespace, crds_dir, installed_crd)
        else:
            summary = _live(kind_dir, namespace, kubeconfig, sample, seed_key_secret, crds_dir, installed_crd)
    except errors.StencilError as error:
        click.echo(f"error: {error}", err=True)
        raise SystemExit(BAD_INPUT) from error
    _print(summary, output)
    if summary.api is not None and summary.api.refused:
        raise SystemExit(API_BREAKING)
    if summary.broken:
        raise SystemExit(BROKEN)
    raise SystemExit(CHANGES if exit_code and summary.changed else 0)


def _live(
    kind_dir: Path,
    namespace: str | None,
    kubeconfig: str | None,
    sample: int,
    seed_key_secret: str,
    crds_dir: Path | None,
    installed_crd: Path | None,
) -> fleetreport.Summary:
    from engine.core.model import kinds
    from engine.core.offline import fleetreport
    from engine.runtime.cluster.kube import Kube
    from engine.tools import apicheck, fleet, seeding

    kind = kinds.load_kind(kind_dir)
    kube = Kube.from_kubeconfig(kubeconfig)
    try:
        api = _noted(apicheck.check(kind, crds_dir, installed_crd, kube))
        found = fleet.read(kube, kind, namespace)
        with seeding.as_the_engine(kube, kind, seed_key_secret) as unkeyed:
            for note in [*found.notes, *([unkeyed] if unkeyed else [])]:
                click.echo(f"note: {note}", err=True)
            plans = found.plan(kind, kube.is_namespaced, fleet.lookup(kube))
        chosen = fleetreport.sample(plans, sample)
        summary = fleetreport.summarize(kind.kind, plans, fleet.dry_run(kube, chosen), sampled=len(chosen))
        return dataclasses.replace(summary, api=api)
    finally:
        kube.close()  # the listings' connections, opened eight at a time


def _offline(
    kind_dir: Path,
    files: tuple[Path, ...],
    observed_files: tuple[Path, ...],
    namespace: str | None,
    crds_dir: Path | None,
    installed_crd: Path | None,
) -> fleetreport.Summary:
    """The plan of the parents in ``files``, each CR checked and defaulted as ``stencil render`` does."""
    from engine.core.model import errors
    from engine.core.model.language import documents
    from engine.core.offline import fleetreport
    from engine.tools import apicheck, fleet

    kind, crds, parents = read_crs(kind_dir, files, namespace or "default", crds_dir)
    api = _noted(apicheck.check(kind, crds_dir, installed_crd, None))
    objects: list[dict[str, Any]] = []
    for file in (*files, *observed_files):
        for document in opened_lists(documents.Document.read_all(file, errors.StencilError)):
            data = document.data
            named = isinstance(data, dict) and isinstance(data.get("metadata"), dict)
            if named and (data.get("apiVersion"), data.get("kind")) != (kind.api_version, kind.kind):
                objects.append(data)
    found = fleet.Fleet.of([parent for _, parent in parents], objects)
    return dataclasses.replace(
        fleetreport.summarize(kind.kind, found.plan(kind, crds.is_namespaced)), api=api
    )


def _noted(checked: apicheck.Checked) -> crdchanges.Report | None:
    """The API check's report, its notes said on stderr."""
    for note in checked.notes:
        click.echo(f"note: {note}", err=True)
    return checked.report


def _print(summary: fleetreport.Summary, output: str) -> None:
    from engine.core.offline import fleetreport

    if output == "json":
        click.echo(json.dumps(fleetreport.as_json(summary), indent=2))
    else:
        click.echo(fleetreport.text(summary), nl=False)


@main.group()
def rollout() -> None:
    """A kind's rollout of a changed folder: its state, and a way on or back."""


@contextlib.contextmanager
def _kube(kubeconfig: str | None) -> Iterator[Any]:
    """A client for one command, its connections closed when the command is done."""
    from engine.runtime.cluster.kube import Kube

    with contextlib.closing(Kube.auto(kubeconfig)) as kube:
        yield kube


def _read(kube: Any, kind: str) -> dict[str, Any]:
    from engine.core.model import errors
    from engine.runtime.reconciling import revisions

    try:
        resource = kube.resource(revisions.GROUP_VERSION, revisions.ROLLOUT_KIND)
    except errors.NotFound as exc:
        raise click.ClickException("the KindRollout CRD is not installed (crds/kindrollout.yaml)") from exc
    found: dict[str, Any] | None = kube.get(resource, kind)
    if found is None:
        raise click.ClickException(f"no KindRollout {kind!r}: the engine has not served a kind by that name")
    return found


def _steer(kube: Any, kind: str, spec: dict[str, Any]) -> None:
    """Merge ``spec`` into the KindRollout and mark it resumed now."""
    from engine.core.decisions import conditions
    from engine.runtime.reconciling import revisions

    now = conditions.timestamp(datetime.datetime.now(datetime.UTC))
    resource = kube.resource(revisions.GROUP_VERSION, revisions.ROLLOUT_KIND)
    body = {"metadata": {"annotations": {revisions.RESUMED_ANNOTATION: now}}, "spec": spec}
    kube.request("PATCH", resource.path(None, kind), body, content_type="application/merge-patch+json")


@rollout.command()
@click.argument("kind")
@options.kubeconfig("Kubeconfig to use (default: $KUBECONFIG, ~/.kube/config).")
@click.option("--format", "format_", type=click.Choice(["text", "json"]), default="text", show_default=True)
def status(kind: str, kubeconfig: str | None, format_: str) -> None:
    """Print where KIND's rollout stands: revisions, parents moved, the parent that stopped it."""
    with _kube(kubeconfig) as kube:
        obj = _read(kube, kind)
    spec, said = obj.get("spec") or {}, obj.get("status") or {}
    if format_ == "json":
        click.echo(json.dumps({"kind": kind, "spec": spec, "status": said}, indent=2, sort_keys=True))
        return
    found = {c.get("type"): c for c in said.get("conditions") or ()}
    progressing = found.get("Progressing") or {}
    target = spec.get("revision") or said.get("updateRevision")
    click.echo(f"kind {kind}: revision {target} (current {said.get('currentRevision')})")
    click.echo(
        f"parents: {said.get('parents', 0)}, updated {said.get('updatedParents', 0)}, "
        f"moving {said.get('unavailableParents', 0)}, failed {said.get('failedParents', 0)}"
        f" in {said.get('failedNamespaces', 0)} namespace(s)"
    )
    click.echo(f"paused: {'yes' if spec.get('paused') else 'no'}")
    click.echo(f"{progressing.get('reason', 'Unknown')}: {progressing.get('message', '')}")
    if failure := said.get("failure"):
        click.echo(f"stopped: {failure.get('reason')}: {failure.get('message')}")


@rollout.command()
@click.argument("kind")
@options.kubeconfig("Kubeconfig to use (default: $KUBECONFIG, ~/.kube/config).")
def resume(kind: str, kubeconfig: str | None) -> None:
    """Go on with KIND's rollout: no longer paused, the moving parents' deadline starts again."""
    with _kube(kubeconfig) as kube:
        _read(kube, kind)
        _steer(kube, kind, {"paused": False})
    click.echo(f"kind {kind}: rollout resumed")


@rollout.command()
@click.argument("kind")
@options.kubeconfig("Kubeconfig to use (default: $KUBECONFIG, ~/.kube/config).")
@click.option("--to-revision", type=click.IntRange(min=1), default=None, help="Default: the previous one.")
def undo(kind: str, kubeconfig: str | None, to_revision: int | None) -> None:
    """Move every parent of KIND back to the previous revision (or --to-revision)."""
    with _kube(kubeconfig) as kube:
        said = _read(kube, kind).get("status") or {}
    update, current = said.get("updateRevision"), said.get("currentRevision")
    if to_revision is None:
        if not isinstance(update, int) or not isinstance(current, int):
            raise click.ClickException(f"kind {kind}: its rollout has no revisions yet")
        to_revision = current if current != update else update - 1
    if to_revision < 1:
        raise click.ClickException(f"kind {kind}: revision {update} is its first; there is none before it")
    with _kube(kubeconfig) as kube:
        _steer(kube, kind, {"paused": False, "revision": to_revision})
    click.echo(f"kind {kind}: rolling back to revision {to_revision}")
