"""``stencil argocd-health``: the ``argocd-cm`` health checks that let Argo CD read the kinds' parents."""

from __future__ import annotations

from pathlib import Path

import click

from engine.tools.cli import options
from engine.tools.cli._common import chosen_kind_dirs, main


@main.command("argocd-health")
@options.kind_dirs_arguments("given a check")
def argocd_health(kind_dirs: tuple[Path, ...], templates_dir: Path) -> None:
    """Print the argocd-cm data keys, resource.customizations.health.<group>_<Kind>, whose Lua
    makes Argo CD show each kind's parents Healthy, Progressing or Degraded as the engine does."""
    from engine.core.model import kinds
    from engine.tools import argocd

    loaded = [kinds.load_kind(directory) for directory in chosen_kind_dirs(kind_dirs, templates_dir)]
    click.echo(argocd.dump(argocd.health_checks(loaded)), nl=False)
