"""`stencil render --observed FILE` previews a template that reads ``children.<id>``: FILE's
object with the identity that template renders is the child it reads."""

from __future__ import annotations

from pathlib import Path

import yaml
from click.testing import CliRunner

from engine.tools import cli
from tests.unit import _lintkinds

CONFIGMAP = _lintkinds.configmap(
    "  ip: \"{{ children.svc.spec.clusterIP if children.svc is not none else 'pending' }}\"\n"
)
SERVICE = "apiVersion: v1\nkind: Service\nmetadata:\n  name: svc\nspec:\n  ports: [{port: 80}]\n"
OBSERVED = (
    "apiVersion: v1\nkind: Service\nmetadata: {name: svc, namespace: default}\nspec: {clusterIP: 10.96.0.9}\n"
)


def configmap_data(folder: Path, *args: str) -> dict[str, str]:
    example = folder / "examples" / "small.yaml"
    result = CliRunner().invoke(cli.main, ["render", str(folder), "-f", str(example), *args])
    assert result.exit_code == 0, result.output
    configmap = next(doc for doc in yaml.safe_load_all(result.stdout) if doc["kind"] == "ConfigMap")
    data: dict[str, str] = configmap["data"]
    return data


def test_render_observed_gives_the_template_the_child_of_the_id_it_reads(tmp_path: Path) -> None:
    folder = _lintkinds.kind_folder(tmp_path, {"cm.yaml": CONFIGMAP, "svc.yaml": SERVICE})
    observed = tmp_path / "observed.yaml"
    observed.write_text(OBSERVED)

    assert configmap_data(folder) == {"ip": "pending"}
    assert configmap_data(folder, "--observed", str(observed)) == {"ip": "10.96.0.9"}
