"""A rendered child that its schema refuses is an error at the template line that wrote the field."""

from __future__ import annotations

from pathlib import Path

from engine.tools import linter
from tests.unit._lintkinds import configmap, kind_folder, line_of

TEMPLATE = configmap("  x: y\nbinaryData: not-a-mapping\n")


def test_lint_reports_a_child_field_its_schema_refuses(tmp_path: Path) -> None:
    folder = kind_folder(tmp_path, {"cm.yaml": TEMPLATE})

    findings = linter.lint([folder])

    assert [(f.file, f.line, f.severity, f.check) for f in findings] == [
        (str(folder / "cm.yaml"), line_of(TEMPLATE, "binaryData"), "error", "child-schema")
    ]
    assert "binaryData" in findings[0].message
