"""`stencil crd KIND_DIR` prints the CRD kind.yaml's schema writes, and says so when there is none."""

from __future__ import annotations

from pathlib import Path

import yaml
from click.testing import CliRunner

from engine.core.model import kinds
from engine.tools import cli
from tests.unit import _kinds

ROOT = Path(__file__).resolve().parents[3]


def test_the_printed_crd_is_the_kinds() -> None:
    result = CliRunner().invoke(cli.main, ["crd", str(ROOT / "examples" / "webapp")])
    assert result.exit_code == 0, result.output
    printed = yaml.safe_load(result.output)
    assert printed == kinds.load_kind(ROOT / "examples" / "webapp").crd
    assert printed["metadata"]["name"] == "webapps.examples.stencil.dev"
    columns = [c["name"] for c in printed["spec"]["versions"][0]["additionalPrinterColumns"]]
    assert columns == ["Image", "Ready", "Reason", "Age"]


def test_a_kind_without_a_schema_is_told_so(tmp_path: Path) -> None:
    kind_dir = _kinds.with_crd_file(ROOT / "templates" / "network", tmp_path / "network")
    result = CliRunner().invoke(cli.main, ["crd", str(kind_dir)])
    assert result.exit_code != 0
    assert f"{kind_dir / kinds.KIND_FILE}: schema: Network has no schema" in result.output
