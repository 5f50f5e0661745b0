"""``stencil render`` and ``stencil diff``: a kind's children for given CRs, offline or against a cluster."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from engine.tools.cli import options
from engine.tools.cli._common import main, read_crs

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
@click.option(
    "--observed",
    "observed_file",
    default=None,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="The children (and observed objects) as the cluster has them, as `kubectl get -o yaml` "
    "prints them: what the templates read [default: none], and with --status what the rules read "
    "[default: every rendered child, healthy].",
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

    With --observed, the templates read the children given there, as they
    would read them in a cluster, and the objects the kind's references name.
    With --status, print instead each CR with the status the kind's rules
    derive (conditions and fields) after its children are applied and, unless
    --observed gives them as they are, made healthy by their controllers.
    """
    from engine.core.model import errors
    from engine.core.offline import preview
    from engine.core.templating import rendering
    from engine.tools import yamlwriting

    try:
        kind, crds, parents = read_crs(kind_dir, files, namespace, crds_dir)
        observed = None
        if observed_file is not None:
            observed = _read_observed(observed_file)
        output: list[dict[str, Any]] = []
        for where, parent in parents:
            try:
                if show_status:
                    output.append(
                        preview.parent_status(
                            kind, parent, now, observed=observed, is_namespaced=crds.is_namespaced
                        )
                    )
                else:
                    children, _ = preview.split_observed(kind, parent, observed or ())
                    references = _references(kind, parent, observed or (), crds.is_namespaced)
                    output.extend(
                        rendering.render(
                            kind, parent, children, is_namespaced=crds.is_namespaced, references=references
                        )
                    )
            except errors.StencilError as error:
                name = parent["metadata"]["name"]
                raise click.ClickException(
                    f"{error}\n  (rendering {kind.kind} {name} from {where})"
                ) from error
    except errors.StencilError as error:
        raise click.ClickException(str(error)) from error
    click.echo(yamlwriting.dump_all(output), nl=False)


def _references(
    kind: Kind,
    parent: dict[str, Any],
    observed: Sequence[dict[str, Any]],
    is_namespaced: Callable[[str, str], bool],
) -> dict[str, Any]:
    """What the kind's references read for ``parent``, found among the ``observed`` objects, as the
    engine finds them in its caches; a required one missing is an error, as it holds the engine's
    render back."""
    from engine.core.decisions import referencing
    from engine.core.model import errors

    resolved = referencing.resolve(referencing.targets(kind, parent, is_namespaced), lambda _: list(observed))
    if resolved.missing:
        raise errors.StencilError(f"{resolved.missing[0]}: give it with --observed FILE")
    return dict(resolved.values)


# What an --observed document must be for the templates and rules to read it: an object as
# `kubectl get -o yaml` prints one, or a List of them.
_OBSERVED = {
    "type": "object",
    "required": ["apiVersion", "kind"],
    "properties": {
        "apiVersion": {"type": "string"},
        "kind": {"type": "string"},
        "items": {"type": "array", "items": {"type": "object"}},
    },
}


def _read_observed(file: Path) -> list[dict[str, Any]]:
    """The objects of the --observed ``file``, Lists opened; anything else is an error at its line,
    never dropped (a file the templates silently do not read would preview the wrong children)."""
    from engine.core.model import documents, errors
    from engine.core.offline import preview

    objects = []
    for document in documents.Document.read_all(file, errors.StencilError):
        document.validate(_OBSERVED)
        objects.append(document.data)
    return preview.flatten_lists(objects)


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
def diff(
    kind_dir: Path, files: tuple[Path, ...], namespace: str, crds_dir: Path | None, kubeconfig: str | None
) -> None:
    """Show what the engine would change in the cluster for the CRs in the -f files.

    Read-only: each child the engine would apply is applied as a server-side dry
    run and compared with the live object; children it would prune are shown as
    deletions.  Exits 0 when nothing would change, 1 when something would, 2 on
    bad input, like kubectl diff.
    """
    from engine.core.model import errors
    from engine.runtime.cluster.kube import Kube
    from engine.tools import diffing

    try:
        kind, _, parents = read_crs(kind_dir, files, namespace, crds_dir)
        with contextlib.closing(Kube.from_kubeconfig(kubeconfig)) as kube:
            changes = [change for _, parent in parents for change in diffing.preview(kube, kind, parent)]
    except errors.StencilError as error:
        click.echo(f"error: {error}", err=True)
        raise SystemExit(2) from error
    for change in changes:
        fields = f" ({', '.join(change.fields)})" if change.fields else ""
        click.echo(f"{change.action:<9} {change.child}{fields}")
        if change.diff:
            click.echo(change.diff, nl=False)
    raise SystemExit(1 if any(c.action != "unchanged" for c in changes) else 0)
