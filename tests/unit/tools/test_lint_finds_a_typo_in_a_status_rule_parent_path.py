"""A status rule reading a parent field the CRD does not have is an error at the rule's line."""

from __future__ import annotations

from pathlib import Path

from engine.core.model.language.documents import Document
from engine.tools import linter
from tests.unit._lintkinds import configmap, kind_folder

RULES = """status:
  conditions:
    - type: Scaled
      status: "child('ConfigMap', name).data.n == spec.replcias"
"""


def test_lint_reports_a_misspelt_parent_field_in_a_rule(tmp_path: Path) -> None:
    folder = kind_folder(
        tmp_path, {"cm.yaml": configmap("  n: '{{ spec.replicas }}'\n")}, kind_yaml_extra=RULES
    )
    line = Document.read(folder / "kind.yaml").line_of(("status", "conditions", 0, "status"))

    findings = [f for f in linter.lint([folder]) if f.severity == "error"]

    assert [(f.file, f.line, f.check) for f in findings] == [
        (str(folder / "kind.yaml"), line, "unknown-field")
    ]
    assert "spec.replcias" in findings[0].message
    assert "did you mean replicas" in findings[0].message
