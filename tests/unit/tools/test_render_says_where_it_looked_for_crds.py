"""Without --crds and without the parent's CRD in either usual place, `stencil render` says where it
looked and how to name the folder, rather than rendering without the CRD's defaults and checks."""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner

from engine.core.offline import admission
from engine.tools import cli
from tests.unit import _kinds

SAMPLE = _kinds.SEED_FOLDER / "examples" / "deploywebservice-sample.yaml"


def test_the_error_names_both_places_and_the_option(tmp_path: Path) -> None:
    kind_dir = _kinds.seed_with_crd_file(tmp_path / "project" / "templates" / "deploywebservice")
    (tmp_path / "project" / "crds").mkdir()  # the project's crds/ is there, but without this CRD
    result = CliRunner().invoke(cli.main, ["render", str(kind_dir), "-f", str(SAMPLE)])
    assert result.exit_code != 0
    for place in admission.crd_places(kind_dir):
        assert f"{place}/" in result.output
    assert "--crds" in result.output
    assert f"{kind_dir / 'kind.yaml'}: parent: no CRD for DeployWebService" in result.output


def test_status_previews_look_in_the_same_places(tmp_path: Path) -> None:
    kind_dir = _kinds.seed_with_crd_file(tmp_path / "deploywebservice")
    result = CliRunner().invoke(cli.main, ["render", str(kind_dir), "-f", str(SAMPLE), "--status"])
    assert result.exit_code != 0
    assert all(f"{place}/" in result.output for place in admission.crd_places(kind_dir))


def test_a_folder_named_with_crds_is_used_as_it_is(tmp_path: Path) -> None:
    kind_dir = _kinds.seed_with_crd_file(tmp_path / "deploywebservice")
    (tmp_path / "elsewhere").mkdir()
    shutil.copy(_kinds.SEED_CRD, tmp_path / "elsewhere")
    result = CliRunner().invoke(
        cli.main, ["render", str(kind_dir), "-f", str(SAMPLE), "--crds", str(tmp_path / "elsewhere")]
    )
    assert result.exit_code == 0, result.output
