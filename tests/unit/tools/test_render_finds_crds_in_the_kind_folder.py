"""Without --crds, `stencil render` reads the kind folder's own crds/ first, then crds/ beside the templates.

A kind folder with its CRD inside can be copied alone and still render with
the CRD's defaults; in the project layout the CRDs beside the templates folder
serve every kind.  A kind's own crds/ that lacks its parent's CRD hides nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from click.testing import CliRunner

from engine.core.offline import admission
from engine.tools import cli
from tests.unit import _kinds

CRD = _kinds.SEED_CRD
CR = _kinds.SEED_CR


def crd_with_replicas_default(default: int) -> dict[str, Any]:
    """The shipped CRD, with another default for spec.replicas (the CR above leaves it out)."""
    crd: dict[str, Any] = yaml.safe_load(CRD.read_text())
    for version in crd["spec"]["versions"]:
        schema = version["schema"]["openAPIV3Schema"]
        schema["properties"]["spec"]["properties"]["replicas"]["default"] = default
    return crd


def write_crd(folder: Path, crd: dict[str, Any]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "crd.yaml").write_text(yaml.safe_dump(crd))


def render_replicas(kind_dir: Path, tmp_path: Path) -> int:
    (tmp_path / "cr.yaml").write_text(CR)
    result = CliRunner().invoke(cli.main, ["render", str(kind_dir), "-f", str(tmp_path / "cr.yaml")])
    assert result.exit_code == 0, result.output
    deployment = next(doc for doc in yaml.safe_load_all(result.stdout) if doc["kind"] == "Deployment")
    replicas: int = deployment["spec"]["replicas"]
    return replicas


def project(tmp_path: Path, project_default: int) -> Path:
    """The kind folder copied into a project layout whose crds/ gives replicas ``project_default``."""
    kind_dir = _kinds.seed_with_crd_file(tmp_path / "project" / "templates" / "deploywebservice")
    write_crd(tmp_path / "project" / "crds", crd_with_replicas_default(project_default))
    return kind_dir


def test_a_kind_folder_copied_alone_reads_its_own_crds(tmp_path: Path) -> None:
    kind_dir = _kinds.seed_with_crd_file(tmp_path / "somewhere" / "deploywebservice")
    write_crd(kind_dir / "crds", crd_with_replicas_default(4))
    assert render_replicas(kind_dir, tmp_path) == 4


def test_the_kind_folders_own_crds_come_before_the_projects(tmp_path: Path) -> None:
    kind_dir = project(tmp_path, 2)
    assert render_replicas(kind_dir, tmp_path) == 2
    write_crd(kind_dir / "crds", crd_with_replicas_default(5))
    assert render_replicas(kind_dir, tmp_path) == 5


def test_a_kind_folders_crds_without_its_parents_crd_hide_nothing(tmp_path: Path) -> None:
    kind_dir = project(tmp_path, 3)
    other = crd_with_replicas_default(6)
    other["spec"]["names"]["kind"] = "SomethingElse"
    write_crd(kind_dir / "crds", other)
    assert render_replicas(kind_dir, tmp_path) == 3
    assert (
        admission.find_crds_dir(kind_dir) == kind_dir / "crds"
    )  # the first folder, when no parent is asked for
