"""`stencil render` says which checks of a CR it could not run offline, on stderr, and still renders:
a CEL rule the offline library cannot evaluate, or no CRD for the parent at all."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from click.testing import CliRunner

from engine.tools import cli
from tests.unit import _kinds

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "templates" / "network" / "examples" / "example-network.yaml"


def kind_with_crd(tmp_path: Path, rule: str | None) -> Path:
    """The Network kind copied alone, its CRD inside it, with ``rule`` added on spec (no CRD if None)."""
    folder = _kinds.with_crd_file(ROOT / "templates" / "network", tmp_path / "network")
    (folder / "crds").mkdir()
    if rule is not None:
        crd: dict[str, Any] = yaml.safe_load((_kinds.SHIPPED_CRDS / "network.yaml").read_text())
        spec = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
        spec.setdefault("x-kubernetes-validations", []).append({"rule": rule})
        (folder / "crds" / "network.yaml").write_text(yaml.safe_dump(crd))
    return folder


def test_a_rule_it_cannot_evaluate_is_named_and_the_cr_still_renders(tmp_path: Path) -> None:
    rule = "self.cidr.noSuchFunction() == 'x'"
    result = CliRunner().invoke(cli.main, ["render", str(kind_with_crd(tmp_path, rule)), "-f", str(EXAMPLE)])
    assert result.exit_code == 0, result.output
    assert f"note: {EXAMPLE}:" in result.stderr
    assert f"cannot check rule {rule!r} offline" in result.stderr
    assert "kind: ConfigMap" in result.stdout


def test_a_missing_crd_is_said_when_a_crds_folder_is_named(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    folder = kind_with_crd(tmp_path, None)
    result = CliRunner().invoke(cli.main, ["render", str(folder), "-f", str(EXAMPLE), "--crds", str(empty)])
    assert result.exit_code == 0, result.output
    assert "no CRD for Network" in result.stderr
    assert "not validated" in result.stderr
