"""``stencil plan -f``: 0 when the plan is made, 1 with --exit-code when a parent changes, 3 when one
would fail to render; a ``List`` as ``kubectl get -o yaml`` prints it is read as its parents."""

import shutil
from pathlib import Path

import yaml
from click.testing import CliRunner

from engine.tools.cli import main
from tests.unit import _kinds

KIND_DIR = _kinds.SEED_FOLDER
CRDS = KIND_DIR.parents[1] / "crds"


def plan(tmp_path: Path, *args: str, kind_dir: Path = KIND_DIR) -> tuple[int, str]:
    parents = [
        {
            "apiVersion": _kinds.SEED_API_VERSION,
            "kind": "DeployWebService",
            "metadata": {"name": name, "namespace": "shop", "uid": f"uid-{name}"},
            "spec": dict(_kinds.SEED_SPEC),
        }
        for name in ("a", "b")
    ]
    file = tmp_path / "parents.yaml"
    file.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": parents}))
    result = CliRunner().invoke(main, ["plan", str(kind_dir), "-f", str(file), "--crds", str(CRDS), *args])
    return result.exit_code, result.output


def test_stencil_plan_exits_by_what_would_happen(tmp_path: Path) -> None:
    code, output = plan(tmp_path)
    assert code == 0, output
    assert output.startswith("DeployWebService: 2 parents: 2 would change, 0 unchanged, 0 would fail"), output

    assert plan(tmp_path, "--exit-code")[0] == 1

    broken = tmp_path / "deploywebservice"
    shutil.copytree(KIND_DIR, broken)
    template = broken / "deployment.yaml"
    template.write_text(template.read_text().replace("spec.image", "spec.tls.image"))
    code, output = plan(tmp_path, "--format", "json", kind_dir=broken)
    assert code == 3, output
    assert '"failed": 2' in output
