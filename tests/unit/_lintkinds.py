"""A project folder on disk (templates/<kind>/ and crds/) for the lint tests, built in tmp_path."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from engine.core.offline.linting import Finding
from engine.tools import linter
from tests.unit import _crs

API_VERSION = "example.com/v1"
KIND = "Web"

# Enough schema for typos to be told from fields: spec.replicas, spec.image, spec.ports[].port.
SPEC = {
    "type": "object",
    "properties": {
        "replicas": {"type": "integer", "default": 1},
        "image": {"type": "string"},
        "ports": {"type": "array", "items": {"type": "object", "properties": {"port": {"type": "integer"}}}},
    },
}


def crd_with_status(status: dict[str, Any]) -> dict[str, Any]:
    """The Web CRD (``webs.example.com``) with ``status`` as its status schema."""
    return _crs.definition(
        "example.com",
        {"kind": KIND, "plural": "webs", "singular": "web"},
        {"type": "object", "properties": {**_crs.OBJECT_FIELDS, "spec": SPEC, "status": status}},
    )


CRD = crd_with_status(_crs.PRESERVED)
# A status field rule and a rollout: the engine writes status.url and status.kindRevision too.
WRITES_MORE = """status:
  fields:
    url: "'http://' ~ name"
rollout:
  maxUnavailable: 1
"""

EXAMPLE = f"apiVersion: {API_VERSION}\nkind: {KIND}\nmetadata:\n  name: small\nspec:\n  image: nginx\n"


def configmap(data: str) -> str:
    """A ConfigMap template whose ``data`` block is ``data`` (each line already indented by two)."""
    return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: '{{ name }}'\ndata:\n" + data


def kind_folder(
    root: Path,
    templates: dict[str, str],
    *,
    kind_yaml_extra: str = "",
    examples: dict[str, str] | None = None,
) -> Path:
    """``root/templates/web`` with a kind.yaml (plus ``kind_yaml_extra``), ``templates`` and
    ``examples`` (default: one small Web), and the Web CRD in ``root/crds``."""
    directory = root / "templates" / "web"
    (directory / "examples").mkdir(parents=True)
    (directory / "kind.yaml").write_text(
        "apiVersion: stencil.dev/v1alpha1\nkind: StencilKind\n"
        f"parent:\n  apiVersion: {API_VERSION}\n  kind: {KIND}\n" + kind_yaml_extra
    )
    for name, text in templates.items():
        (directory / name).write_text(text)
    for name, text in (examples if examples is not None else {"small.yaml": EXAMPLE}).items():
        (directory / "examples" / name).write_text(text)
    (root / "crds").mkdir()
    (root / "crds" / "web.yaml").write_text(yaml.safe_dump(CRD))
    return directory


def line_of(text: str, fragment: str) -> int:
    """The 1-based line of ``text`` on which ``fragment`` first appears."""
    return next(number for number, line in enumerate(text.splitlines(), 1) if fragment in line)


def lint_template(root: Path, template: str, check: str) -> tuple[str, list[Finding]]:
    """The file of ``template``, linted as the one template of a kind folder in ``root``, and the
    findings of ``check``."""
    folder = kind_folder(root, {"cm.yaml": template})
    return str(folder / "cm.yaml"), [f for f in linter.lint([folder]) if f.check == check]
