"""`stencil render` of every example of every kind under templates/ matches its golden file.

Kinds and examples are discovered, so a new kind's examples are covered as soon
as they exist.  Regenerate after an intended change with
``STENCIL_UPDATE_GOLDEN=1 pytest tests/golden`` and review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from engine.core.model import kinds
from engine.tools import cli

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = ROOT / "templates"
CRDS = ROOT / "crds"
GOLDEN = Path(__file__).parent
UPDATE = os.environ.get("STENCIL_UPDATE_GOLDEN") == "1"


def kind_folders() -> list[Path]:
    return sorted(p for p in TEMPLATES.iterdir() if (p / kinds.KIND_FILE).is_file())


def examples() -> list[object]:
    return [
        pytest.param(folder, example, id=f"{folder.name}/{example.name}")
        for folder in kind_folders()
        for example in sorted((folder / kinds.EXAMPLES_DIR).glob("*.yaml"))
    ]


@pytest.mark.parametrize(("folder", "example"), examples())
def test_rendered_example_matches_its_golden_file(folder: Path, example: Path) -> None:
    result = CliRunner().invoke(cli.main, ["render", str(folder), "-f", str(example), "--crds", str(CRDS)])
    assert result.exit_code == 0, result.output
    golden = GOLDEN / folder.name / example.name
    if UPDATE:
        golden.parent.mkdir(exist_ok=True)
        golden.write_text(result.stdout)
    assert golden.is_file(), f"no golden file {golden}; create it with STENCIL_UPDATE_GOLDEN=1"
    assert result.stdout == golden.read_text()


@pytest.mark.parametrize("folder", kind_folders(), ids=lambda p: p.name)
def test_every_kind_has_an_example(folder: Path) -> None:
    assert list((folder / kinds.EXAMPLES_DIR).glob("*.yaml")), f"{folder.name} has no examples/*.yaml"


def test_every_golden_file_belongs_to_an_example() -> None:
    stale = [
        golden.relative_to(GOLDEN)
        for golden in GOLDEN.glob("*/*.yaml")
        if not (TEMPLATES / golden.parent.name / kinds.EXAMPLES_DIR / golden.name).is_file()
    ]
    assert not stale, f"golden files without an example (delete them): {stale}"
