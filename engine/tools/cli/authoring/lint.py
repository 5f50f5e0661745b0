"""``stencil lint``: every offline check of kind folders, reported compiler-style.

Only options and output live here; what is checked, and how the checks are
gathered, is ``engine.tools.linter`` (which ``stencil dev`` asks too).
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from engine.tools.cli import options
from engine.tools.cli._common import chosen_kind_dirs, main, read_observed


@main.command("lint")
@options.kind_dirs_arguments("linted")
@options.crds(
    "CRDs of the kinds [default: the kind folder's own crds/, else crds/ beside the templates folder].",
    default=None,
)
@options.cr_files("A file of CRs to check and render besides the examples (repeatable).")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="text: file:line:col: severity: message; json: a list of findings, for CI annotations.",
)
@options.observed(
    "Objects as the cluster has them (`kubectl get -o yaml`), which the kinds' references read "
    "besides each kind's tests/fixtures.yaml.",
)
@click.option(
    "--graph",
    "show_graph",
    is_flag=True,
    help="Also print what each template waits for (after:, or a children.<id> it reads), before "
    "the findings (text only).",
)
def lint(
    kind_dirs: tuple[Path, ...],
    templates_dir: Path,
    crds_dir: Path | None,
    files: tuple[Path, ...],
    output_format: str,
    observed_file: Path | None,
    show_graph: bool,
) -> None:
    """Check kind folders without a cluster: every template branch, status rule and example.

    Checks the kind.yaml of each folder, every filter, test, function and
    parent field that any branch of a template or a status rule names (whether
    or not an example reaches it), each example against its CRD, every status
    rule against each example (references read tests/fixtures.yaml and
    --observed), and which template branches no example takes.  With --graph, it first prints the
    order the templates wait in, each edge with why.  Exits 0 when there is no error
    (warnings allowed), 1 when there is one, 2 on bad usage.
    """
    from engine.core.model.errors import StencilError
    from engine.tools import linter

    if show_graph and output_format == "json":
        raise click.UsageError("--graph prints text; leave out --format json")
    chosen = chosen_kind_dirs(kind_dirs, templates_dir)
    try:
        observed = read_observed(observed_file) if observed_file is not None else []
    except StencilError as error:
        raise click.ClickException(str(error)) from error
    findings = linter.lint(chosen, crds_dir=crds_dir, files=files, observed=observed)
    for line in linter.graph(chosen) if show_graph else ():
        click.echo(line)
    if output_format == "json":
        click.echo(json.dumps([finding.as_json() for finding in findings], indent=2))
    else:
        for finding in findings:
            click.echo(str(finding))
        errors = sum(finding.severity == "error" for finding in findings)
        if findings:
            click.echo(f"{errors} error(s), {len(findings) - errors} warning(s)", err=True)
    raise SystemExit(1 if any(finding.severity == "error" for finding in findings) else 0)
