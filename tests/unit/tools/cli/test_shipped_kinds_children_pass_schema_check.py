"""Every child every shipped kind renders for its examples is one the API server would accept."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.core.model import kinds
from engine.core.offline import childschemas
from engine.core.templating import rendering
from engine.tools.cli._common import read_crs

ROOT = Path(__file__).resolve().parents[4]
TEMPLATES = ROOT / "templates"
CRDS = ROOT / "crds"


def examples() -> list[object]:
    return [
        pytest.param(folder, example, id=f"{folder.name}/{example.name}")
        for folder in sorted(p for p in TEMPLATES.iterdir() if (p / kinds.KIND_FILE).is_file())
        for example in sorted((folder / kinds.EXAMPLES_DIR).glob("*.yaml"))
    ]


@pytest.mark.parametrize(("folder", "example"), examples())
def test_children_of_the_example_have_no_schema_problem(folder: Path, example: Path) -> None:
    kind, crds, parents = read_crs(folder, (example,), "default", CRDS)
    problems = [
        f"{child['kind']} {child['metadata']['name']}: {problem}"
        for _, parent in parents
        for child in rendering.render(kind, parent, [], is_namespaced=crds.is_namespaced)
        for problem in childschemas.check(child, crds)
    ]
    assert problems == []
