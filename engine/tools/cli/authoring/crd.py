"""``stencil crd``: the CustomResourceDefinition a kind writes from the ``schema:`` of its kind.yaml."""

from __future__ import annotations

from pathlib import Path

import click

from engine.tools.cli._common import main


@main.command()
@click.argument("kind_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option(
    "--webhook-service",
    metavar="NAMESPACE/NAME[:PORT]",
    default="stencil/stencil:443",
    show_default=True,
    help="For a kind of several versions: the engine's Service, which serves their conversion.",
)
@click.option(
    "--webhook-url",
    metavar="URL",
    help="For a kind of several versions: the engine's address instead of a Service (an engine run "
    "outside the cluster); /convert is added.",
)
def crd(kind_dir: Path, webhook_service: str, webhook_url: str | None) -> None:
    """Print the CRD that KIND_DIR's kind.yaml schema writes, for kubectl apply or a chart.

    A kind of several versions (versions: in kind.yaml) gets every version and a conversion
    webhook; its caBundle is written by the engine, which makes and rotates the certificate."""
    import yaml

    from engine.core.model import errors, kinds
    from engine.core.model.language.documents import Document
    from engine.core.model.versioning import versions

    kind = kinds.load_kind(kind_dir)
    if kind.crd is None:
        raise errors.KindError(
            f"{kind.kind} has no schema: its CRD is a hand-written file, not written from kind.yaml",
            file=str(kind_dir / kinds.KIND_FILE),
            field="schema",
        )
    if kind.conversion is not None:
        where, _, port = webhook_service.partition(":")
        namespace, _, name = where.partition("/")
        if not namespace or not name or (port and not port.isdigit()):
            raise click.BadParameter(
                "give NAMESPACE/NAME or NAMESPACE/NAME:PORT", param_hint="--webhook-service"
            )
        webhook = versions.Webhook(namespace=namespace, name=name, port=int(port or 443), url=webhook_url)
        document = Document.read(kind_dir / kinds.KIND_FILE)
        written = versions.crd(document, kind.api_version, kind.kind, webhook)
    else:
        written = kind.crd
    click.echo(yaml.safe_dump(written, sort_keys=False, width=120), nl=False)
