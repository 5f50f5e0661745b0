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
@click.option(
    "--kind-lease-namespace",
    default="kube-system",
    show_default=True,
    help="Where the kinds' Leases are (stencil run --kind-lease-namespace).",
)
@click.option(
    "--user-roles",
    is_flag=True,
    help="Print instead, for each kind, the ClusterRoles <name>-<kind>-admin|edit|view that aggregate "
    "into Kubernetes' admin, edit and view roles: for the people who use the kinds.",
)
@click.option(
    "--shards",
    is_flag=True,
    help="For replicas run with stencil run --shards: also patch on each kind's parents (the owner and "
    "drain labels) and the replicas' own Leases in the engine's namespace.",
)
@options.read_as("The ServiceAccount references are read as where a kind names none (stencil run --read-as).")
def rbac(
    templates_dir: Path,
    crds_dir: Path,
    name: str,
    namespace: str,
    kind_lease_namespace: str,
    user_roles: bool,
    shards: bool,
    read_as: str,
) -> None:
    """Print the least-privilege RBAC the engine needs for these kinds (or, with --user-roles,
    the roles of the people who use them)."""
    from engine.core.model import kinds
    from engine.core.offline import admission
    from engine.core.offline import rbac as rbac_rules

    loaded, broken = kinds.load_kinds(templates_dir)
    for kind_name, b in broken.items():
        raise click.ClickException(f"kind {kind_name} is broken: {b.error}")
    resources = rbac_rules.offline_resources(crds_dir, loaded.values())
    if user_roles:
        users = rbac_rules.user_clusterroles(rbac_rules.user_roles(loaded.values(), resources), name)
        click.echo(rbac_rules.dump(users), nl=False)
        return
    defaults = admission.OfflineCrds.read(crds_dir, loaded.values()).defaulted
    roles = rbac_rules.documents(
        loaded.values(),
        resources,
        name=name,
        defaults=defaults,
        namespace=namespace,
        lease_name="stencil-leader",
        kind_lease_namespace=kind_lease_namespace,
        sharded=shards,
        reader=read_as,
    )
    click.echo(rbac_rules.dump(roles), nl=False)
