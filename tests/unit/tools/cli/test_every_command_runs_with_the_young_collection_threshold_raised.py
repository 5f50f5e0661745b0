"""Every `stencil` command, offline ones included, runs with the collector's young threshold raised
(`_common.GC_YOUNG_THRESHOLD`): what a command reads and renders survives many young collections,
and each full collection that triggers walks all of it for nothing."""

from __future__ import annotations

import gc
from pathlib import Path

from click.testing import CliRunner

from engine.tools.cli import main
from engine.tools.cli._common import GC_YOUNG_THRESHOLD

FOLDER = Path(__file__).resolve().parents[4] / "templates" / "deploywebservice"
EXAMPLE = FOLDER / "examples" / "nginx.yaml"


def test_render_runs_with_the_raised_threshold() -> None:
    before = gc.get_threshold()
    gc.set_threshold(700, 10, 10)  # Python's default, whatever an earlier test left
    try:
        result = CliRunner().invoke(main, ["render", str(FOLDER), "-f", str(EXAMPLE)])
        assert result.exit_code == 0, result.output
        assert gc.get_threshold() == (GC_YOUNG_THRESHOLD, 20, 100)
    finally:
        gc.set_threshold(*before)
