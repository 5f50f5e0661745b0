"""``stencil rbac``: the least-privilege RBAC the engine needs, derived offline from the kinds."""

from __future__ import annotations

from pathlib import Path

import click

from engine.tools.cli import options
from engine.tools.cli._common import main


@main.command()
@options.templates()
@options.crds()
@click.option("--name", default="stencil", show_default=True, help="Name of the ClusterRole and Role.")
@options.namespace("stencil-system", "The engine's namespace.")
def rbac(templates_dir: Path, crds_dir: Path, name: str, namespace: str) -> None:
    """Print the least-privilege RBAC the engine needs for these kinds."""
    from engine.core.model import kinds
    from engine.core.offline import admission
    from engine.core.offline import rbac as rbac_rules

    loaded, broken = kinds.load_kinds(templates_dir)
    for kind_name, b in broken.items():
        raise click.ClickException(f"kind {kind_name} is broken: {b.error}")
    defaults = admission.OfflineCrds.read(crds_dir, loaded.values()).defaulted
    roles = rbac_rules.documents(
        loaded.values(),
        rbac_rules.offline_resources(crds_dir, loaded.values()),
        name=name,
        defaults=defaults,
        namespace=namespace,
        lease_name="stencil-leader",
    )
    click.echo(rbac_rules.dump(roles), nl=False)
