"""Each CR is also rendered with the longest name its CRD allows: a label made from the parent's
name that overflows there, though not for the examples' short names, is a warning."""

from __future__ import annotations

from pathlib import Path

from engine.tools import linter
from tests.unit._lintkinds import kind_folder, line_of

TEMPLATE = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: config\n  labels:\n    app: '{{ name }}'\n"


def test_lint_long_names_reports_the_overflowing_label(tmp_path: Path) -> None:
    folder = kind_folder(tmp_path, {"cm.yaml": TEMPLATE})

    findings = linter.lint([folder])

    assert [(f.file, f.line, f.severity) for f in findings] == [
        (str(folder / "cm.yaml"), line_of(TEMPLATE, "app:"), "warning")
    ]
    assert "63" in findings[0].message
