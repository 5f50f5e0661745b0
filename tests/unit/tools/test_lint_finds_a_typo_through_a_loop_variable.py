"""Fields read through a loop variable are checked against the items of the list looped over."""

from __future__ import annotations

from pathlib import Path

from engine.tools import linter
from tests.unit._lintkinds import configmap, kind_folder, line_of

TEMPLATE = configmap(
    "{% for p in spec.ports | default([]) %}\n  port-{{ loop.index }}: '{{ p.prot }}'\n{% endfor %}\n  x: y\n"
)


def test_lint_reports_a_misspelt_field_of_a_loop_item(tmp_path: Path) -> None:
    folder = kind_folder(tmp_path, {"cm.yaml": TEMPLATE})

    errors = [f for f in linter.lint([folder]) if f.severity == "error"]

    assert [(f.file, f.line, f.check) for f in errors] == [
        (str(folder / "cm.yaml"), line_of(TEMPLATE, "p.prot"), "unknown-field")
    ]
    assert "did you mean port" in errors[0].message
