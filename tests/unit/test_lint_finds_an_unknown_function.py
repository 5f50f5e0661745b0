"""Calling a function the template environment does not have is an error, even in an untaken branch."""

from __future__ import annotations

from pathlib import Path

from tests.unit._lintkinds import configmap, line_of, lint_template

TEMPLATE = configmap("{% if spec.ports is defined %}\n  n: '{{ lenght(spec.ports) }}'\n{% endif %}\n  x: y\n")


def test_lint_reports_an_unknown_function(tmp_path: Path) -> None:
    file, findings = lint_template(tmp_path, TEMPLATE, "unknown-function")

    assert [(f.file, f.line, f.severity) for f in findings] == [(file, line_of(TEMPLATE, "lenght"), "error")]
    assert "'lenght'" in findings[0].message
