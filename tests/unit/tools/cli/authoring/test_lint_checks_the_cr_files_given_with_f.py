"""`stencil lint -f FILE` checks the CRs in FILE like the examples: a refused field is an error there."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from engine.tools.cli import main
from tests.unit._lintkinds import EXAMPLE, configmap, kind_folder, line_of

REFUSED = EXAMPLE.replace("image: nginx", "image: [not, a, string]")


def test_lint_reports_a_refused_cr_of_a_given_file(tmp_path: Path) -> None:
    folder = kind_folder(tmp_path, {"cm.yaml": configmap("  x: y\n")})
    crs = tmp_path / "crs.yaml"
    crs.write_text(REFUSED)

    result = CliRunner().invoke(main, ["lint", "-f", str(crs), str(folder)])

    assert result.exit_code == 1
    assert result.stdout.startswith(f"{crs}:{line_of(REFUSED, 'image')}: error: spec.image")
