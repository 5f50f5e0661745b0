"""Without --crds and without the parent's CRD in either usual place, `stencil render` says where it
looked and how to name the folder, rather than rendering without the CRD's defaults and checks."""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner

from engine.core.offline import admission
from engine.tools import cli

ROOT = Path(__file__).resolve().parents[2]
KIND = ROOT / "templates" / "deploywebservice"
SAMPLE = KIND / "examples" / "deploywebservice-sample.yaml"


def test_the_error_names_both_places_and_the_option(tmp_path: Path) -> None:
    kind_dir = tmp_path / "project" / "templates" / "deploywebservice"
    shutil.copytree(KIND, kind_dir)
    (tmp_path / "project" / "crds").mkdir()  # the project's crds/ is there, but without this CRD
    result = CliRunner().invoke(cli.main, ["render", str(kind_dir), "-f", str(SAMPLE)])
    assert result.exit_code != 0
    for place in admission.crd_places(kind_dir):
        assert f"{place}/" in result.output
    assert "--crds" in result.output
    assert f"{kind_dir / 'kind.yaml'}: parent: no CRD for DeployWebService" in result.output


def test_status_previews_look_in_the_same_places(tmp_path: Path) -> None:
    kind_dir = tmp_path / "deploywebservice"
    shutil.copytree(KIND, kind_dir)
    result = CliRunner().invoke(cli.main, ["render", str(kind_dir), "-f", str(SAMPLE), "--status"])
    assert result.exit_code != 0
    assert all(f"{place}/" in result.output for place in admission.crd_places(kind_dir))


def test_a_folder_named_with_crds_is_used_as_it_is(tmp_path: Path) -> None:
    kind_dir = tmp_path / "deploywebservice"
    shutil.copytree(KIND, kind_dir)
    shutil.copytree(ROOT / "crds", tmp_path / "elsewhere")
    result = CliRunner().invoke(
        cli.main, ["render", str(kind_dir), "-f", str(SAMPLE), "--crds", str(tmp_path / "elsewhere")]
    )
    assert result.exit_code == 0, result.output
