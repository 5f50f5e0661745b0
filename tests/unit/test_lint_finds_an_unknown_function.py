"""Calling a function the template environment does not have is an error, even in an untaken branch."""

from __future__ import annotations

from pathlib import Path

from engine.tools import linter
from tests.unit._lintkinds import configmap, kind_folder, line_of

TEMPLATE = configmap("{% if spec.ports is defined %}\n  n: '{{ lenght(spec.ports) }}'\n{% endif %}\n  x: y\n")


def test_lint_reports_an_unknown_function(tmp_path: Path) -> None:
    folder = kind_folder(tmp_path, {"cm.yaml": TEMPLATE})

    findings = [f for f in linter.lint([folder]) if f.check == "unknown-function"]

    assert [(f.file, f.line, f.severity) for f in findings] == [
        (str(folder / "cm.yaml"), line_of(TEMPLATE, "lenght"), "error")
    ]
    assert "'lenght'" in findings[0].message
