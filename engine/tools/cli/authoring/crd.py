"""``stencil crd``: the CustomResourceDefinition a kind writes from the ``schema:`` of its kind.yaml."""

from __future__ import annotations

from pathlib import Path

import click

from engine.tools.cli._common import main


@main.command()
@click.argument("kind_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
def crd(kind_dir: Path) -> None:
    """Print the CRD that KIND_DIR's kind.yaml schema writes, for kubectl apply or a chart."""
    import yaml

    from engine.core.model import errors, kinds

    kind = kinds.load_kind(kind_dir)
    if kind.crd is None:
        raise errors.KindError(
            f"{kind.kind} has no schema: its CRD is a hand-written file, not written from kind.yaml",
            file=str(kind_dir / kinds.KIND_FILE),
            field="schema",
        )
    click.echo(yaml.safe_dump(kind.crd, sort_keys=False, width=120), nl=False)
