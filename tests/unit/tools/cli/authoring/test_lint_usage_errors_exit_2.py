"""A bad option or a missing folder is a usage error: exit 2, as click gives, not 1 (a finding)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from engine.tools.cli import main


def test_lint_exits_2_for_an_unknown_format(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["lint", "--format", "xml", str(tmp_path)])

    assert result.exit_code == 2


def test_lint_exits_2_for_a_missing_kind_folder(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["lint", str(tmp_path / "missing")])

    assert result.exit_code == 2


def test_lint_exits_2_without_a_templates_folder(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["lint", "--templates", str(tmp_path / "missing")])

    assert result.exit_code == 2
