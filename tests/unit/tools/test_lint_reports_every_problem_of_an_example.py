"""An example the CRD refuses is reported problem by problem, each at its own line, not just the first."""

from __future__ import annotations

from pathlib import Path

from engine.tools import linter
from tests.unit._lintkinds import configmap, kind_folder, line_of

EXAMPLE = (
    "apiVersion: example.com/v1\nkind: Web\nmetadata:\n  name: bad\nspec:\n  replicas: many\n  image: 7\n"
)


def test_lint_reports_each_refused_field_of_an_example(tmp_path: Path) -> None:
    folder = kind_folder(tmp_path, {"cm.yaml": configmap("  x: y\n")}, examples={"bad.yaml": EXAMPLE})
    example = str(folder / "examples" / "bad.yaml")

    errors = [f for f in linter.lint([folder]) if f.severity == "error"]

    assert [(f.file, f.line, f.check) for f in errors] == [
        (example, line_of(EXAMPLE, "replicas"), "example"),
        (example, line_of(EXAMPLE, "image"), "example"),
    ]
