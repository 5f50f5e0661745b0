"""Every kind under examples/kro, ported from kro's own graphs, lints clean: no errors, no
warnings, no output."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from engine.tools.cli import main

KRO = Path(__file__).resolve().parents[5] / "examples" / "kro"


def test_lint_of_the_kro_examples_is_silent() -> None:
    result = CliRunner().invoke(main, ["lint", "--templates", str(KRO)])

    assert (result.exit_code, result.output) == (0, "")
