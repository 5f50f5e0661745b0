"""Every kind under examples/crossplane, ported from function-go-templating's examples, lints
clean: no errors, no warnings, no output."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from engine.tools.cli import main

CROSSPLANE = Path(__file__).resolve().parents[5] / "examples" / "crossplane"


def test_lint_of_the_crossplane_examples_is_silent() -> None:
    result = CliRunner().invoke(main, ["lint", "--templates", str(CROSSPLANE)])

    assert (result.exit_code, result.output) == (0, "")
