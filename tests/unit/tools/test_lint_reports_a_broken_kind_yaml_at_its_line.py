"""A kind.yaml that does not load is one finding at its file and line; the other folders are still linted."""

from __future__ import annotations

from pathlib import Path

from engine.core.model import kinds
from engine.core.model.errors import KindError
from engine.tools import linter
from tests.unit._lintkinds import configmap, kind_folder


def test_lint_reports_the_load_error_of_kind_yaml(tmp_path: Path) -> None:
    folder = kind_folder(
        tmp_path, {"cm.yaml": configmap("  x: y\n")}, kind_yaml_extra="placement: {rbac: maybe}\n"
    )
    try:
        kinds.load_kind(folder)
    except KindError as error:
        expected = error
    else:
        raise AssertionError("the kind.yaml was expected not to load")

    findings = linter.lint([folder])

    assert [(f.file, f.line, f.severity, f.check) for f in findings] == [
        (expected.file, expected.line, "error", "kind")
    ]
    assert expected.message in findings[0].message
