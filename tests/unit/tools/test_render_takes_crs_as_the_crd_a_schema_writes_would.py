"""`stencil render` of a kind with a schema needs no CRD file: the CRD its kind.yaml writes gives
the CR its defaults and refuses what breaks a bound, at the CR's line and field."""

from __future__ import annotations

from pathlib import Path

import yaml
from click.testing import CliRunner

from engine.tools import cli

ROOT = Path(__file__).resolve().parents[3]
KIND = ROOT / "examples" / "webapp"


def _cr(tmp_path: Path, spec: str) -> Path:
    file = tmp_path / "cr.yaml"
    head = "apiVersion: examples.stencil.dev/v1\nkind: WebApp\nmetadata:\n  name: shop\n"
    file.write_text(f"{head}spec:\n{spec}")
    return file


def test_defaults_reach_the_children(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli.main, ["render", str(KIND), "-f", str(_cr(tmp_path, "  image: nginx\n"))])
    assert result.exit_code == 0, result.output
    deployment = next(d for d in yaml.safe_load_all(result.output) if d["kind"] == "Deployment")
    assert deployment["spec"]["replicas"] == 1
    assert deployment["spec"]["template"]["metadata"]["labels"]["tier"] == "frontend"
    assert deployment["spec"]["template"]["spec"]["containers"][0]["ports"][0]["containerPort"] == 8080


def test_a_value_beyond_a_bound_is_refused_at_its_line(tmp_path: Path) -> None:
    cr = _cr(tmp_path, "  image: nginx\n  replicas: 21\n")
    result = CliRunner().invoke(cli.main, ["render", str(KIND), "-f", str(cr)])
    assert result.exit_code != 0
    assert f"{cr}:7: spec.replicas: must be at most 20, not 21" in result.output


def test_a_missing_required_field_is_refused(tmp_path: Path) -> None:
    cr = _cr(tmp_path, "  replicas: 2\n")
    result = CliRunner().invoke(cli.main, ["render", str(KIND), "-f", str(cr)])
    assert result.exit_code != 0
    assert f"{cr}:5: spec: missing required field 'image'" in result.output
