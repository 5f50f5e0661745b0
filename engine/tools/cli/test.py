"""``stencil test``: every example of the chosen kinds, run on a local control plane and checked.

Wiring only; what a run does is ``engine.tools.kindtest``.  Exit codes: 0 when
every example passed, 1 when one failed (or the plane did not come up), 2 for a
usage error, 130 when interrupted.
"""

from __future__ import annotations

from pathlib import Path

import click

from engine.tools.cli._common import main


@main.command(name="test")
@click.argument("kind_dirs", nargs=-1, type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option(
    "--templates",
    "templates_dir",
    default="templates",
    show_default=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Folder of kind folders, every one of which is tested when no KIND_DIR is named.",
)
@click.option(
    "--timeout",
    default=120.0,
    show_default=True,
    type=click.FloatRange(min=1),
    help="Seconds an example's parent has to become Ready (or reach its expected status).",
)
@click.option(
    "--update",
    is_flag=True,
    help="Write each example's golden file (tests/<example>.children.yaml) from the live children.",
)
def test_command(kind_dirs: tuple[Path, ...], templates_dir: Path, timeout: float, update: bool) -> None:
    """Run each example of the kinds (default: every kind under templates/) on a local cluster.

    Each example goes into a namespace of its own; its parent must become Ready (or match
    tests/<example>.status.yaml), and its children must match tests/<example>.children.yaml
    in the fields Stencil applies.
    """
    import logging

    from engine.core import errors
    from engine.localcluster import BuildError, ClusterError
    from engine.tools import kindtest

    logging.basicConfig(level=logging.ERROR, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    try:
        chosen = kindtest.load(list(kind_dirs) or kindtest.kind_folders(templates_dir))
        kindtest.crds_dirs(chosen)
    except kindtest.UsageError as error:
        raise click.UsageError(str(error)) from error
    except errors.StencilError as error:
        raise click.ClickException(str(error)) from error
    try:
        report = kindtest.run(chosen, timeout=timeout, update=update, echo=click.echo)
    except KeyboardInterrupt:
        click.echo("interrupted; the local control plane is stopped", err=True)
        raise SystemExit(130) from None
    except kindtest.UsageError as error:
        raise click.UsageError(str(error)) from error
    except (errors.StencilError, BuildError, ClusterError) as error:
        raise click.ClickException(str(error)) from error
    if not report.passed:
        raise SystemExit(1)
