"""A kind folder for the rights cases: ``tests.unit._lintkinds``'s ``Web``, whose CRD here keeps
whatever ``spec`` holds (so every value a tenant sends reaches the templates), rendered by the
real ``stencil render``."""

from __future__ import annotations

import copy
from pathlib import Path

import yaml
from click.testing import CliRunner, Result

from engine.tools import cli
from tests.unit import _lintkinds

# A ConfigMap whose namespace, labels and data are the CR's.
TEMPLATE = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: '{{ name }}'
  namespace: '{{ spec.target }}'
  labels: {{ spec.labels }}
data: {{ spec.data }}
"""
ANYWHERE = "placement:\n  namespaces: ['*']\n"  # kind.yaml lines: a child may name any namespace
CRD = copy.deepcopy(_lintkinds.CRD)
CRD["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"] = {
    "type": "object",
    "x-kubernetes-preserve-unknown-fields": True,
}


def web(name: str, spec: dict[str, object]) -> str:
    """A Web CR as YAML."""
    metadata = {"name": name}
    return yaml.safe_dump(
        {"apiVersion": _lintkinds.API_VERSION, "kind": _lintkinds.KIND, "metadata": metadata, "spec": spec}
    )


def kind_folder(root: Path, template: str, example: dict[str, object], placement: str = "") -> Path:
    """``root/templates/web``: one template ``child.yaml``, kind.yaml with ``placement`` (YAML
    lines), one example whose spec is ``example``, and the CRD in ``root/crds``."""
    folder = _lintkinds.kind_folder(
        root,
        {"child.yaml": template},
        kind_yaml_extra=placement,
        examples={"example.yaml": web("example", example)},
    )
    (root / "crds" / "web.yaml").write_text(yaml.safe_dump(CRD))
    return folder


def render(folder: Path, spec: dict[str, object], tmp_path: Path) -> Result:
    """``stencil render`` of the kind for one Web CR whose spec is ``spec``, in namespace ``team-a``."""
    cr = tmp_path / "cr.yaml"
    cr.write_text(web("hostile", spec))
    return CliRunner().invoke(cli.main, ["render", str(folder), "-f", str(cr), "-n", "team-a"])
