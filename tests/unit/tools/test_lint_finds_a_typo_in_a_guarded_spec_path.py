"""`{% if spec.replicsa is defined %}` renders without complaint and drops its branch: lint says so."""

from __future__ import annotations

from pathlib import Path

from engine.tools import linter
from tests.unit._lintkinds import configmap, kind_folder, line_of

TEMPLATE = configmap(
    "{% if spec.replicsa is defined %}\n  replicas: '{{ spec.replicas }}'\n{% endif %}\n  x: y\n"
)


def test_lint_reports_a_misspelt_field_inside_an_is_defined_guard(tmp_path: Path) -> None:
    folder = kind_folder(tmp_path, {"cm.yaml": TEMPLATE})
    line = line_of(TEMPLATE, "replicsa")
    column = TEMPLATE.splitlines()[line - 1].index("replicsa") + 1

    errors = [f for f in linter.lint([folder]) if f.severity == "error"]

    assert [(f.file, f.line, f.column, f.check) for f in errors] == [
        (str(folder / "cm.yaml"), line, column, "unknown-field")
    ]
    assert str(errors[0]).startswith(f"{folder / 'cm.yaml'}:{line}:{column}: error: spec.replicsa")
    assert "did you mean replicas" in errors[0].message
