"""A misspelt filter behind an {% if %} that no example turns on is still an error, at its line."""

from __future__ import annotations

from pathlib import Path

from engine.tools import linter
from tests.unit._lintkinds import configmap, kind_folder, line_of

TEMPLATE = configmap(
    "{% if spec.replicas > 100 %}\n  many: {{ spec.replicas | tojsn }}\n{% endif %}\n  x: y\n"
)


def test_lint_reports_an_unknown_filter_in_an_untaken_branch(tmp_path: Path) -> None:
    folder = kind_folder(tmp_path, {"cm.yaml": TEMPLATE})

    findings = [f for f in linter.lint([folder]) if f.check == "unknown-filter"]

    assert [(f.file, f.line, f.severity) for f in findings] == [
        (str(folder / "cm.yaml"), line_of(TEMPLATE, "tojsn"), "error")
    ]
    assert "'tojsn'" in findings[0].message
    assert "did you mean tojson" in findings[0].message
