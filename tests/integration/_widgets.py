"""The tests' own free-form kind, Widget (tests.stencil.dev/v1, CRD in fixtures/): kind folders
written on the fly, to try the engine on templates made for one test.  ``configmap`` (the unit
tests' own) writes the ConfigMap template most of them render."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import yaml

from tests.unit._kinds import configmap

API_VERSION = "tests.stencil.dev/v1"

KIND_YAML = f"""\
apiVersion: stencil.dev/v1alpha1
kind: StencilKind
parent:
  apiVersion: {API_VERSION}
  kind: Widget
"""


# A ConfigMap holding the spec's value: its data follows every spec change.
VALUE_CONFIGMAP = configmap('  value: "{{ spec.value }}"\n', name="{{ name }}-data")

# A ConfigMap named by the spec, so two parents can render the same name; its data says
# which parent wrote it.
SHARED_NAME_CONFIGMAP = configmap("  parent: {{ name }}\n", name="{{ spec.shared }}")


def write_kind(templates: Path, files: dict[str, str], kind_yaml_extra: str = "") -> Path:
    """(Re)write ``templates/widget/``: ``kind.yaml`` (the parent plus ``kind_yaml_extra``) and
    ``files``; returns ``templates``, the folder to give the engine."""
    folder = templates / "widget"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "kind.yaml").write_text(KIND_YAML + kind_yaml_extra)
    for name, text in files.items():
        (folder / name).write_text(text)
    return templates


def widget(name: str, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": API_VERSION, "kind": "Widget", "metadata": {"name": name}, "spec": spec}


def widget_project(root: Path, files: dict[str, str], examples: dict[str, Any]) -> Path:
    """A project for ``stencil test`` under ``root``: the Widget CRD in ``crds/``, and
    ``templates/widget/`` with ``files`` as its templates (in order) and ``examples`` (file stem:
    the Widget) in ``examples/``; returns the kind folder."""
    kind_dir = write_kind(root / "templates", files, f"templates: [{', '.join(files)}]\n") / "widget"
    (kind_dir / "examples").mkdir()
    for stem, obj in examples.items():
        (kind_dir / "examples" / f"{stem}.yaml").write_text(yaml.safe_dump(obj))
    (root / "crds").mkdir()
    shutil.copy(Path(__file__).parent / "fixtures" / "widget-crd.yaml", root / "crds")
    return kind_dir
