"""``stencil graph -o svg`` with no Graphviz ``dot`` on PATH fails in one line saying what to install,
and writes nothing; ``-o dot`` needs no Graphviz."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from engine.tools import cli

NETWORK = Path(__file__).resolve().parents[3] / "templates" / "network"


def test_svg_without_dot_is_one_line_naming_graphviz(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    picture = tmp_path / "network.svg"

    result = CliRunner().invoke(cli.main, ["graph", "-o", "svg", "--output", str(picture), str(NETWORK)])

    assert result.exit_code == 1
    assert result.stderr.count("\n") == 1
    assert "Graphviz's dot on PATH" in result.stderr and "apt-get install graphviz" in result.stderr
    assert not picture.exists()


def test_svg_without_an_output_file_is_a_usage_error() -> None:
    result = CliRunner().invoke(cli.main, ["graph", "-o", "svg", str(NETWORK)])

    assert result.exit_code == 2
    assert "--output FILE" in result.stderr


def test_dot_without_dot_on_path_is_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))

    result = CliRunner().invoke(cli.main, ["graph", str(NETWORK)])

    assert result.exit_code == 0
    assert result.stdout.startswith('digraph "Network" {')
