"""A golden file that no longer says what the engine applies fails ``stencil test`` (exit 1) with
the file, line and field, and a diff; the other examples still pass."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from engine.tools import cli, kindtest
from tests.integration._engine import ROOT

pytestmark = [pytest.mark.cluster, pytest.mark.nodes]

FOLDER = ROOT / "templates" / "deploywebservice"


def copy_kind(tmp_path: Path) -> Path:
    """The kind folder alone (its kind.yaml writes its CRD), laid out as a project."""
    kind_dir = tmp_path / "templates" / FOLDER.name
    shutil.copytree(FOLDER, kind_dir)
    return kind_dir


def test_stencil_test_fails_naming_the_field_a_golden_file_gets_wrong(tmp_path: Path) -> None:
    kind_dir = copy_kind(tmp_path)
    golden = kind_dir / kindtest.TESTS_DIR / "nginx.children.yaml"
    children = list(yaml.safe_load_all(golden.read_text()))
    deployment = next(child for child in children if child["kind"] == "Deployment")
    applied = deployment["spec"]["replicas"]
    deployment["spec"]["replicas"] = applied + 1
    golden.write_text(kindtest.golden_text(children))
    line = golden.read_text().splitlines().index(f"  replicas: {applied + 1}") + 1

    result = CliRunner().invoke(cli.main, ["test", str(kind_dir)])

    assert result.exit_code == 1, result.output
    name = deployment["metadata"]["name"]
    expected = f"{golden}:{line}: Deployment {name}: spec.replicas: expected {applied + 1}, live {applied}"
    assert expected in result.output
    assert f"-  replicas: {applied + 1}" in result.output and f"+  replicas: {applied}" in result.output
    assert "FAIL deploywebservice/nginx" in result.output
    assert "PASS deploywebservice/deploywebservice-sample" in result.output
