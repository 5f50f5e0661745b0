"""A command whose output is piped into a reader that stops early (``stencil lint --graph | head -1``)
ends quietly: no traceback and no error line, as other command-line tools end on a closed pipe."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_lint_graph_into_a_closed_pipe_says_nothing_on_stderr() -> None:
    # A pipe whose reader is gone before the command writes: what `head -1` leaves once it has
    # its line, without depending on which of the two processes is quicker.
    reader, writer = os.pipe()
    os.close(reader)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "engine.tools.cli", "lint", "--graph"],
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            stdout=writer,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
            check=False,
        )
    finally:
        os.close(writer)

    assert done.stderr == ""
    assert done.returncode == 1
