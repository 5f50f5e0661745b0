"""``stencil test``: every example of the chosen kinds, run on a local control plane and checked.

Wiring only; what it does is ``engine.tools.kindtest``.
"""

from __future__ import annotations

from pathlib import Path

import click

from engine.tools.cli._common import main


@main.command(name="test")
@click.argument("kind_dirs", nargs=-1, type=click.Path(exists=True, file_okay=False, path_type=Path))
def test_command(kind_dirs: tuple[Path, ...]) -> None:
    """Run each example of the kinds (default: every kind under templates/) on a local cluster."""
    raise click.UsageError("not yet available")
