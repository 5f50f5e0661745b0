"""``stencil render`` and ``stencil diff``: a kind's children for given CRs, offline or against a cluster."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from engine.tools.cli import options
from engine.tools.cli._common import main, read_crs, read_observed

if TYPE_CHECKING:
    from engine.core.model.kinds import Kind


@main.command("render")
@options.cr_files_arguments
@click.option(
    "--status",
    "show_status",
    is_flag=True,
    help="Print each CR's status as the kind's rules derive it once its children are applied, "
    "instead of the children.",
)
@options.observed(
    "The children (and observed objects) as the cluster has them, as `kubectl get -o yaml` "
    "prints them (one naming no namespace is in its CR's): what the templates read [default: none], "
    "and with --status what the rules read [default: every rendered child, healthy].",
)
@click.option(
    "--now",
    default=None,
    callback=lambda _ctx, _param, value: _rfc3339(value),
    help="With --status: the time the status is derived at, RFC 3339 [default: the current time].",
)
def render(
    kind_dir: Path,
    files: tuple[Path, ...],
    namespace: str,
    crds_dir: Path | None,
    show_status: bool,
    observed_file: Path | None,
    now: str,
) -> None:
    """Print the children KIND_DIR renders for the CRs in the -f files, exactly as they would be applied.

    No cluster is contacted.  Each CR is first validated against its CRD and
    given the CRD's defaults, as the API server would; a CR without a uid gets
    the all-zero one.  Bad input exits non-zero with "file:line: field: message".

    The kind's references read the objects of its tests/fixtures.yaml (and of
    tests/<example>.fixtures.yaml for a CR of examples/<example>.yaml) and of
    --observed, where the templates also find the children as they would read
    them in a cluster.  With --status, print instead each CR with the status
    the kind's rules derive (conditions and fields) after its children are
    applied and, unless --observed gives them as they are, made healthy by
    their controllers; a rule that fails is an error at its line, and the
    command exits non-zero.
    """
    from engine.core import door
    from engine.core.model import errors
    from engine.core.offline import preview
    from engine.tools import yamlwriting

    failed: list[errors.StencilError] = []
    try:
        kind, crds, parents = read_crs(kind_dir, files, namespace, crds_dir)
        observed = None
        if observed_file is not None:
            observed = read_observed(observed_file)
        output: list[dict[str, Any]] = []
        for where, parent in parents:
            given = _fixtures(kind, where)
            try:
                if show_status:
                    shown, failures = preview.parent_status(
                        kind,
                        parent,
                        now,
                        observed=observed,
                        fixtures=given,
                        is_namespaced=crds.is_namespaced,
                        crds=crds,
                    )
                    failed += failures
                    output.append(shown)
                else:
                    rendered, _ = door.offline(
                        kind, parent, observed or (), given, is_namespaced=crds.is_namespaced
                    )
                    if refused := crds.unserved(rendered.located):
                        raise refused[0]  # as the engine would say it live, at the apiVersion's line
                    output.extend(rendered.children)
                    for one in rendered.patches:  # not objects to apply: fields set on existing ones
                        file, line = one.where(("metadata", "name"))
                        fields = yamlwriting.dump_all([one.child]).strip().replace("\n", "\n    ")
                        said = f"note: {file}:{line}: patches an existing object:\n    {fields}"
                        click.echo(said, err=True)
            except errors.StencilError as error:
                name = parent["metadata"]["name"]
                raise click.ClickException(
                    f"{error}\n  (rendering {kind.kind} {name} from {where})"
                ) from error
    except errors.StencilError as error:
        raise click.ClickException(str(error)) from error
    click.echo(yamlwriting.dump_all(output), nl=False)
    if failed:
        for said in dict.fromkeys(str(error) for error in failed):
            click.echo(f"error: {said}", err=True)
        raise SystemExit(1)


def _fixtures(kind: Kind, where: str) -> list[dict[str, Any]]:
    """The fixtures of the CR read at ``where`` (``file:line``): the kind's, and an example's own."""
    from engine.core.offline import fixtures

    file = Path(where.rsplit(":", 1)[0]).resolve()
    example = file if file.parent == (kind.directory / "examples").resolve() else None
    return fixtures.objects(kind, example)


def _rfc3339(value: str | None) -> str:
    """``--now`` checked, or the current time; as the API server writes times (UTC, seconds, ``Z``)."""
    import datetime

    from engine.core.decisions import conditions

    if value is None:
        return conditions.timestamp(datetime.datetime.now(datetime.UTC))
    try:
        moment = datetime.datetime.fromisoformat(value)
    except ValueError:
        moment = None
    if moment is None or moment.tzinfo is None:
        raise click.BadParameter(
            f"{value!r} is not an RFC 3339 time with an offset, such as 2024-05-01T12:00:00Z"
        )
    return value


@main.command("diff")
@options.cr_files_arguments
@options.kubeconfig("Kubeconfig (default: $KUBECONFIG or ~/.kube/config).")
@options.seed_key_secret()
def diff(
    kind_dir: Path,
    files: tuple[Path, ...],
    namespace: str,
    crds_dir: Path | None,
    kubeconfig: str | None,
    seed_key_secret: str,
) -> None:
    """Show what the engine would change in the cluster for the CRs in the -f files.

    Read-only: each child the engine would apply is applied as a server-side dry
    run and compared with the live object; children it would prune are shown as
    deletions.  Exits 0 when nothing would change, 1 when something would, 2 on
    bad input, like kubectl diff.
    """
    from engine.core.model import errors
    from engine.runtime.cluster.kube import Kube
    from engine.tools import diffing, seeding

    try:
        kind, _, parents = read_crs(kind_dir, files, namespace, crds_dir)
        with (
            contextlib.closing(Kube.from_kubeconfig(kubeconfig)) as kube,
            seeding.as_the_engine(kube, kind, seed_key_secret) as unkeyed,
        ):
            if unkeyed:
                click.echo(f"note: {unkeyed}", err=True)
            changes = [change for _, parent in parents for change in diffing.preview(kube, kind, parent)]
    except errors.StencilError as error:
        click.echo(f"error: {error}", err=True)
        raise SystemExit(2) from error
    for change in changes:
        fields = f" ({', '.join(change.fields)})" if change.fields else ""
        click.echo(f"{change.action:<9} {change.child}{fields}")
        if change.diff:
            click.echo(change.diff, nl=False)
    raise SystemExit(1 if any(c.action not in ("unchanged", "keep") for c in changes) else 0)
