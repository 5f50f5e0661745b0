"""Every kind under templates/ lints clean: no errors, no warnings, no output."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from engine.tools.cli import main

TEMPLATES = Path(__file__).resolve().parents[5] / "templates"


def test_lint_of_the_shipped_kinds_is_silent() -> None:
    result = CliRunner().invoke(main, ["lint", "--templates", str(TEMPLATES)])

    assert (result.exit_code, result.output) == (0, "")
