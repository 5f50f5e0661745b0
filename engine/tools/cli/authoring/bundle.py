"""``stencil bundle``: a kind folder as the objects that drop it into a running release of the chart."""

from __future__ import annotations

from pathlib import Path

import click

from engine.tools.cli import options
from engine.tools.cli._common import main


@main.command()
@click.argument("kind_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@options.crds()
@options.namespace("stencil-system", "The release's namespace, where the engine reads its kind ConfigMaps.")
@click.option("--release", default="stencil", show_default=True, help="The Helm release of the chart.")
@click.option("--shards", is_flag=True, help="The release has sharding.enabled: patch on the parents too.")
@options.read_as("The release's readAs: the ServiceAccount references are read as where the kind names none.")
def bundle(kind_dir: Path, crds_dir: Path, namespace: str, release: str, shards: bool, read_as: str) -> None:
    """Print KIND_DIR as the release's engine serves it, for `kubectl apply -f -`: two ClusterRoles
    that the release's roles aggregate (the rules `stencil rbac` derives for the kind, and its
    Lease) and the kind's ConfigMap.  Apply the kind's CRD first."""
    from engine.core.model import kinds
    from engine.core.offline import admission, dropins, rbac
    from engine.tools import yamlwriting

    kind = kinds.load_kind(kind_dir)
    resources = rbac.offline_resources(crds_dir, [kind])
    defaults = admission.OfflineCrds.read(crds_dir, [kind]).defaulted
    documents = dropins.documents(
        kind, resources, defaults, release=release, namespace=namespace, sharded=shards, reader=read_as
    )
    click.echo(yamlwriting.dump_blocks(documents), nl=False)
