"""``stencil test``: every example of the chosen kinds, run on a local control plane and checked.

Wiring only; what a run does is ``engine.tools.kindtest``.  Exit codes: 0 when
every example passed, 1 when one failed (or the plane did not come up), 2 for a
usage error, 130 when interrupted.
"""

from __future__ import annotations

from pathlib import Path

import click

from engine.tools.cli import options
from engine.tools.cli._common import chosen_kind_dirs, main


@main.command(name="test")
@options.kind_dirs_arguments("tested")
@click.option(
    "--timeout",
    default=120.0,
    show_default=True,
    type=click.FloatRange(min=1),
    help="Seconds an example's parent has to become Ready (or reach its expected status).",
)
@click.option(
    "--settle",
    default=5.0,
    show_default=True,
    type=click.FloatRange(min=0),
    help="Seconds an example's parent must then stay Ready, with no write by the engine to it or "
    "its children, before the children are compared (0: the first Ready).",
)
@click.option(
    "--update",
    is_flag=True,
    help="Write each example's golden file (tests/<example>.children.yaml) from the live children; "
    "each example is run twice, and a value the two runs differ on is written ${ANY}.",
)
def test_command(
    kind_dirs: tuple[Path, ...], templates_dir: Path, timeout: float, settle: float, update: bool
) -> None:
    """Run each example of the kinds (default: every kind under templates/) on a local cluster.

    Each example goes into a namespace of its own, after the objects of tests/fixtures.yaml and
    tests/<example>.fixtures.yaml; its parent must become Ready (or match
    tests/<example>.status.yaml) and stay so through --settle seconds in which the engine writes
    neither it nor its children, and its children must match tests/<example>.children.yaml
    in the fields Stencil applies.  A child the API server refuses fails the example at once.
    Cluster-scoped objects are shared by all examples.
    """
    import logging

    from engine.core.model import errors
    from engine.localcluster import BuildError, ClusterError
    from engine.tools import kindtest

    logging.basicConfig(level=logging.ERROR, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    try:
        chosen = kindtest.load(chosen_kind_dirs(kind_dirs, templates_dir))
        kindtest.crds_dirs(chosen)
    except kindtest.UsageError as error:
        raise click.UsageError(str(error)) from error
    except errors.StencilError as error:
        raise click.ClickException(str(error)) from error
    try:
        report = kindtest.run(chosen, timeout=timeout, update=update, settle=settle, echo=click.echo)
    except KeyboardInterrupt:
        click.echo("interrupted; the local control plane is stopped", err=True)
        raise SystemExit(130) from None
    except kindtest.UsageError as error:
        raise click.UsageError(str(error)) from error
    except (errors.StencilError, BuildError, ClusterError) as error:
        raise click.ClickException(str(error)) from error
    if not report.passed:
        raise SystemExit(1)
