"""`stencil lint` exits 1 when any finding is an error, 0 when there are none or only warnings."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from engine.tools.cli import main
from tests.unit._lintkinds import configmap, kind_folder

UNTAKEN_BRANCH = configmap("{% if spec.replicas > 100 %}\n  many: 'yes'\n{% endif %}\n  x: y\n")
BAD_FILTER = configmap("  x: '{{ name | uper }}'\n")


def test_lint_exits_0_with_only_warnings(tmp_path: Path) -> None:
    folder = kind_folder(tmp_path, {"cm.yaml": UNTAKEN_BRANCH})

    result = CliRunner().invoke(main, ["lint", str(folder)])

    assert result.exit_code == 0
    assert ": warning: " in result.stdout


def test_lint_exits_1_with_an_error(tmp_path: Path) -> None:
    folder = kind_folder(tmp_path, {"cm.yaml": BAD_FILTER})

    result = CliRunner().invoke(main, ["lint", str(folder)])

    assert result.exit_code == 1
    assert ": error: " in result.stdout


def test_lint_exits_0_silently_for_a_clean_kind(tmp_path: Path) -> None:
    folder = kind_folder(tmp_path, {"cm.yaml": configmap("  x: y\n")})

    result = CliRunner().invoke(main, ["lint", str(folder)])

    assert (result.exit_code, result.stdout) == (0, "")
