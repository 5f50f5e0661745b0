"""``stencil plan -f ... --installed-crd FILE``: the kind's new CRD is compared with the installed one
first; a field the new one drops is refused by name, before the parents, with exit code 4 and in
the JSON; a field it adds passes; with no --installed-crd nothing is compared."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import yaml

from engine.core.model import kinds
from engine.tools.cli.operating import changes
from tests.unit import _kinds
from tests.unit.tools.cli.operating.test_stencil_plan_exits_by_what_would_happen import plan

NEW = kinds.load_kind(_kinds.SEED_FOLDER).crd


def installed(tmp_path: Path, change: Any) -> Path:
    """The seed's CRD as `kubectl get crd -o yaml` prints it, changed by ``change``, in a file."""
    crd = copy.deepcopy(NEW)
    assert crd is not None
    crd["status"] = {"storedVersions": ["v1beta1"]}
    change(crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"])
    file = tmp_path / "installed.yaml"
    file.write_text(yaml.safe_dump(crd))
    return file


def test_a_field_the_new_crd_drops_is_refused_by_name_before_the_parents(tmp_path: Path) -> None:
    file = installed(tmp_path, lambda fields: fields.update(team={"type": "string"}))

    code, output = plan(tmp_path, "--installed-crd", str(file))

    assert code == changes.API_BREAKING == 4, output
    head, _ = output.split("\n\nDeployWebService: 2 parents", 1)
    assert head.splitlines()[:2] == [
        f"API of deploywebservice.operator.wujiuye.com against {file}: 1 refused",
        "  refused: v1beta1 spec.team: removed: the API server prunes it from every stored object it reads",
    ]
    assert "add a new one (a new name under spec.versions)" in head

    code, output = plan(tmp_path, "--installed-crd", str(file), "--format", "json")
    assert code == 4
    api = json.loads(output)["api"]
    assert (api["crd"], api["refused"]) == ("deploywebservice.operator.wujiuye.com", 1)
    assert [(f["severity"], f["version"], f["path"]) for f in api["findings"]] == [
        ("refused", "v1beta1", "spec.team")
    ]


def test_a_type_the_new_crd_narrows_is_refused(tmp_path: Path) -> None:
    file = installed(tmp_path, lambda fields: fields.update(replicas={"x-kubernetes-int-or-string": True}))

    code, output = plan(tmp_path, "--installed-crd", str(file), "--format", "json")

    assert code == 4, output
    [finding] = json.loads(output)["api"]["findings"]
    assert finding["path"] == "spec.replicas" and finding["what"].startswith("type int-or-string -> integer")


def test_a_field_the_new_crd_adds_passes_and_without_an_installed_crd_nothing_is_compared(
    tmp_path: Path,
) -> None:
    file = installed(tmp_path, lambda fields: fields.pop("exposed_port"))

    code, output = plan(tmp_path, "--installed-crd", str(file))

    assert code == 0, output
    assert output.startswith(
        f"API of deploywebservice.operator.wujiuye.com against {file}: "
        "no change stored objects would feel\n\n"
        "DeployWebService: 2 parents"
    ), output
    code, output = plan(tmp_path, "--format", "json")
    assert code == 0 and json.loads(output)["api"] is None
