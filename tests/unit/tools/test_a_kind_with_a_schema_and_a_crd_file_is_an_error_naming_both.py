"""A kind whose kind.yaml has a schema while a CRD file also serves its parent has two CRDs: which
one the API server should get is a guess, so render, lint and rbac refuse it, naming both files."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from engine.core.model import kinds
from engine.tools import cli

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "examples" / "webapp"


def _project(tmp_path: Path) -> tuple[Path, Path]:
    """The schema's example kind under templates/, with its generated CRD also written to crds/."""
    kind_dir = tmp_path / "templates" / "webapp"
    shutil.copytree(EXAMPLE, kind_dir)
    crd = kinds.load_kind(kind_dir).crd
    (tmp_path / "crds").mkdir()
    (tmp_path / "crds" / "webapp.yaml").write_text(yaml.safe_dump(crd))
    return kind_dir, tmp_path / "crds" / "webapp.yaml"


@pytest.mark.parametrize(
    "command",
    [
        lambda kind_dir: ["render", str(kind_dir), "-f", str(kind_dir / "examples" / "shop.yaml")],
        lambda kind_dir: ["lint", str(kind_dir)],
        lambda kind_dir: [
            "rbac",
            "--templates",
            str(kind_dir.parent),
            "--crds",
            str(kind_dir.parents[1] / "crds"),
        ],
    ],
    ids=["render", "lint", "rbac"],
)
def test_both_files_are_named(tmp_path: Path, command: object) -> None:
    kind_dir, crd_file = _project(tmp_path)
    result = CliRunner().invoke(cli.main, command(kind_dir))  # type: ignore[operator]
    assert result.exit_code != 0
    assert f"{kind_dir / kinds.KIND_FILE}:" in result.output
    assert "schema: WebApp has both this schema and a hand-written CRD at " in result.output
    assert f"{crd_file}:" in result.output


def test_without_the_file_the_schema_serves_alone(tmp_path: Path) -> None:
    kind_dir, crd_file = _project(tmp_path)
    crd_file.unlink()
    result = CliRunner().invoke(cli.main, ["lint", str(kind_dir)])
    assert result.exit_code == 0, result.output
