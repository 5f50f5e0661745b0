"""`stencil render --status` of every example of every kind under templates/ matches its golden file.

The status each example's parent shows once its children are applied and
healthy, at a fixed time: what a change to a kind's status rules (or to the
engine's conditions) does is then a reviewed diff.  The files are
``status/<kind>/<example>.yaml``; regenerate them, with the render goldens,
by ``STENCIL_UPDATE_GOLDEN=1 pytest tests/golden`` and review the diff.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from engine.core.model import kinds
from engine.tools import cli
from tests.golden.test_golden_render import CRDS, GOLDEN, TEMPLATES, UPDATE, examples

STATUS = GOLDEN / "status"
NOW = "2024-01-01T00:00:00Z"  # every timestamp of the preview; any fixed time would do


@pytest.mark.parametrize(("folder", "example"), examples())
def test_status_preview_of_an_example_matches_its_golden_file(folder: Path, example: Path) -> None:
    arguments = ["render", str(folder), "-f", str(example), "--crds", str(CRDS), "--status", "--now", NOW]
    result = CliRunner().invoke(cli.main, arguments)
    assert result.exit_code == 0, result.output
    golden = STATUS / folder.name / example.name
    if UPDATE:
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(result.stdout)
    assert golden.is_file(), f"no golden file {golden}; create it with STENCIL_UPDATE_GOLDEN=1"
    assert result.stdout == golden.read_text()


def test_every_status_golden_file_belongs_to_an_example() -> None:
    stale = [
        golden.relative_to(GOLDEN)
        for golden in STATUS.glob("*/*.yaml")
        if not (TEMPLATES / golden.parent.name / kinds.EXAMPLES_DIR / golden.name).is_file()
    ]
    assert not stale, f"status golden files without an example (delete them): {stale}"
