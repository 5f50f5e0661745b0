"""A status rule that looks up a child kind the kind never renders can only ever read none."""

from __future__ import annotations

from pathlib import Path

from engine.core.model.language.documents import Document
from engine.tools import linter
from tests.unit._lintkinds import configmap, kind_folder

RULES = """status:
  fields:
    data: "child('ConfigMap', name).data"
    port: "child('Service', name).spec.ports[0].port"
"""


def test_lint_reports_a_child_kind_no_template_renders(tmp_path: Path) -> None:
    folder = kind_folder(tmp_path, {"cm.yaml": configmap("  x: y\n")}, kind_yaml_extra=RULES)
    line = Document.read(folder / "kind.yaml").line_of(("status", "fields", "port"))

    findings = [f for f in linter.lint([folder]) if f.check == "unknown-child-kind"]

    assert [(f.file, f.line, f.severity) for f in findings] == [(str(folder / "kind.yaml"), line, "error")]
    assert "Service" in findings[0].message
    assert "ConfigMap" in findings[0].message  # what it does render
