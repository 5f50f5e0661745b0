"""`stencil render --observed FILE` renders the children with the templates reading FILE's objects.

A template that reads an observed child can so be previewed offline; it used to
be refused with "--observed is read only with --status".
"""

from __future__ import annotations

from pathlib import Path

import yaml
from click.testing import CliRunner

from engine.tools import cli
from tests.unit import _lintkinds

TEMPLATE = _lintkinds.configmap(
    "  ip: \"{{ child('Service', name).spec.clusterIP if child('Service', name) else 'pending' }}\"\n"
)
SERVICE = (
    "apiVersion: v1\nkind: Service\nmetadata: {name: small, namespace: default}\n"
    "spec: {clusterIP: 10.0.0.7}\n"
)


def render(folder: Path, *args: str) -> dict[str, str]:
    example = folder / "examples" / "small.yaml"
    result = CliRunner().invoke(cli.main, ["render", str(folder), "-f", str(example), *args])
    assert result.exit_code == 0, result.output
    [configmap] = yaml.safe_load_all(result.stdout)
    data: dict[str, str] = configmap["data"]
    return data


def test_the_templates_read_the_observed_children_given_without_status(tmp_path: Path) -> None:
    folder = _lintkinds.kind_folder(tmp_path, {"cm.yaml": TEMPLATE})
    observed = tmp_path / "observed.yaml"
    observed.write_text(SERVICE)

    assert render(folder) == {"ip": "pending"}
    assert render(folder, "--observed", str(observed)) == {"ip": "10.0.0.7"}


def test_objects_of_another_namespace_are_not_the_parents_children(tmp_path: Path) -> None:
    folder = _lintkinds.kind_folder(tmp_path, {"cm.yaml": TEMPLATE})
    observed = tmp_path / "observed.yaml"
    observed.write_text(SERVICE.replace("namespace: default", "namespace: elsewhere"))

    assert render(folder, "--observed", str(observed)) == {"ip": "pending"}
