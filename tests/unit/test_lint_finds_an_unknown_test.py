"""A test (`is ...`) the template environment does not have is an error, with a did-you-mean."""

from __future__ import annotations

from pathlib import Path

from tests.unit._lintkinds import configmap, line_of, lint_template

TEMPLATE = configmap("{% if spec.image is strng %}\n  image: yes\n{% endif %}\n  x: y\n")


def test_lint_reports_an_unknown_test(tmp_path: Path) -> None:
    file, findings = lint_template(tmp_path, TEMPLATE, "unknown-test")

    assert [(f.file, f.line, f.severity) for f in findings] == [(file, line_of(TEMPLATE, "strng"), "error")]
    assert "did you mean string" in findings[0].message
