"""A misspelt filter behind an {% if %} that no example turns on is still an error, at its line."""

from __future__ import annotations

from pathlib import Path

from tests.unit._lintkinds import configmap, line_of, lint_template

TEMPLATE = configmap(
    "{% if spec.replicas > 100 %}\n  many: {{ spec.replicas | tojsn }}\n{% endif %}\n  x: y\n"
)


def test_lint_reports_an_unknown_filter_in_an_untaken_branch(tmp_path: Path) -> None:
    file, findings = lint_template(tmp_path, TEMPLATE, "unknown-filter")

    assert [(f.file, f.line, f.severity) for f in findings] == [(file, line_of(TEMPLATE, "tojsn"), "error")]
    assert "'tojsn'" in findings[0].message
    assert "did you mean tojson" in findings[0].message
