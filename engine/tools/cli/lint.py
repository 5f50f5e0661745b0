"""``stencil lint``: every offline check of kind folders, reported compiler-style.

Only options and output live here; what is checked, and how the checks are
gathered, is ``engine.tools.linter`` (which ``stencil dev`` asks too).
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from engine.tools.cli import options
from engine.tools.cli._common import chosen_kind_dirs, main


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
def lint(
    kind_dirs: tuple[Path, ...],
    templates_dir: Path,
    crds_dir: Path | None,
    files: tuple[Path, ...],
    output_format: str,
) -> None:
    """Check kind folders without a cluster: every template branch, status rule and example.

    Checks the kind.yaml of each folder, every filter, test, function and
    parent field that any branch of a template or a status rule names (whether
    or not an example reaches it), each example against its CRD, and which
    template branches no example takes.  Exits 0 when there is no error
    (warnings allowed), 1 when there is one, 2 on bad usage.
    """
    from engine.tools import linter

    findings = linter.lint(chosen_kind_dirs(kind_dirs, templates_dir), crds_dir=crds_dir, files=files)
    if output_format == "json":
        click.echo(json.dumps([finding.as_json() for finding in findings], indent=2))
    else:
        for finding in findings:
            click.echo(str(finding))
        errors = sum(finding.severity == "error" for finding in findings)
        if findings:
            click.echo(f"{errors} error(s), {len(findings) - errors} warning(s)", err=True)
    raise SystemExit(1 if any(finding.severity == "error" for finding in findings) else 0)
