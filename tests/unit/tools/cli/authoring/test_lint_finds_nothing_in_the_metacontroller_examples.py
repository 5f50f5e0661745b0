"""Every kind under examples/metacontroller, ported from Metacontroller's own examples, lints
clean: no errors, no warnings, no output."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from engine.tools.cli import main

METACONTROLLER = Path(__file__).resolve().parents[5] / "examples" / "metacontroller"


def test_lint_of_the_metacontroller_examples_is_silent() -> None:
    result = CliRunner().invoke(main, ["lint", "--templates", str(METACONTROLLER)])

    assert (result.exit_code, result.output) == (0, "")
