"""Lint knows the library's filters and functions, and a misspelt one is an error at its line."""

from __future__ import annotations

from pathlib import Path

from engine.tools import linter
from tests.unit._lintkinds import configmap, kind_folder, line_of, lint_template

USES = configmap(
    "  a: {{ '{}' | fromjson | tojson }}\n  b: {{ 'x: 1' | fromyaml | tojson }}\n"
    "  c: {{ '1Gi' | quantity }}\n  d: {{ quantity('1Gi') }}\n  e: {{ 'x' | digest('sha256') }}\n"
    "  f: {{ 'x' | shorthash }}\n  g: {{ random_string(8, 'x') }}\n"
)


def test_lint_finds_nothing_unknown_in_the_library(tmp_path: Path) -> None:
    folder = kind_folder(tmp_path, {"cm.yaml": USES})
    assert [f for f in linter.lint([folder]) if f.check.startswith("unknown-")] == []


def test_lint_reports_a_misspelt_library_filter(tmp_path: Path) -> None:
    template = configmap("  x: y\n  a: {{ spec.image | fromyml }}\n")
    file, findings = lint_template(tmp_path, template, "unknown-filter")
    assert [(f.file, f.line) for f in findings] == [(file, line_of(template, "fromyml"))]
    assert "did you mean fromyaml" in findings[0].message
