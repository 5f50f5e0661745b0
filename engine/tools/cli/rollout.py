"""``stencil rollout status|resume|undo KIND``: a kind's rollout, read and steered.

They read and write the kind's ``KindRollout`` (``engine.runtime.reconciling.revisions``),
as ``kubectl rollout`` does a Deployment: ``status`` prints what the engine says of the
rollout (and lists the kind's revisions), ``resume`` clears ``spec.paused`` and gives the
parents that were moving their deadline again, ``undo`` moves every parent back to the
previous revision (or ``--to-revision``).
"""

from __future__ import annotations

import datetime
import json
from typing import Any

import click

from engine.tools.cli import options
from engine.tools.cli._common import main


@main.group()
def rollout() -> None:
    """A kind's rollout of a changed folder: its state, and a way on or back."""


def _kube(kubeconfig: str | None) -> Any:
    from engine.runtime.cluster.kube import Kube

    return Kube.auto(kubeconfig)


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
    obj = _read(_kube(kubeconfig), kind)
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
        f"moving {said.get('unavailableParents', 0)}"
    )
    click.echo(f"paused: {'yes' if spec.get('paused') else 'no'}")
    click.echo(f"{progressing.get('reason', 'Unknown')}: {progressing.get('message', '')}")
    if failure := said.get("failure"):
        click.echo(f"stopped by {failure.get('parent')}: {failure.get('reason')}: {failure.get('message')}")


@rollout.command()
@click.argument("kind")
@options.kubeconfig("Kubeconfig to use (default: $KUBECONFIG, ~/.kube/config).")
def resume(kind: str, kubeconfig: str | None) -> None:
    """Go on with KIND's rollout: no longer paused, the moving parents' deadline starts again."""
    kube = _kube(kubeconfig)
    _read(kube, kind)
    _steer(kube, kind, {"paused": False})
    click.echo(f"kind {kind}: rollout resumed")


@rollout.command()
@click.argument("kind")
@options.kubeconfig("Kubeconfig to use (default: $KUBECONFIG, ~/.kube/config).")
@click.option("--to-revision", type=click.IntRange(min=1), default=None, help="Default: the previous one.")
def undo(kind: str, kubeconfig: str | None, to_revision: int | None) -> None:
    """Move every parent of KIND back to the previous revision (or --to-revision)."""
    kube = _kube(kubeconfig)
    said = _read(kube, kind).get("status") or {}
    update, current = said.get("updateRevision"), said.get("currentRevision")
    if to_revision is None:
        if not isinstance(update, int) or not isinstance(current, int):
            raise click.ClickException(f"kind {kind}: its rollout has no revisions yet")
        to_revision = current if current != update else update - 1
    if to_revision < 1:
        raise click.ClickException(f"kind {kind}: revision {update} is its first; there is none before it")
    _steer(kube, kind, {"paused": False, "revision": to_revision})
    click.echo(f"kind {kind}: rolling back to revision {to_revision}")
