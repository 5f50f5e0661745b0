"""``stencil lint`` warns, at the CRD's version, when ``kubectl get`` would not show the parent's
Ready: a CRD without a Ready printer column is a warning, not an error; the column may be written
with either quotes."""

from __future__ import annotations

import copy
from pathlib import Path

import yaml

from engine.tools import linter
from tests.unit import _crs
from tests.unit._lintkinds import CRD, configmap, kind_folder, line_of


def with_columns(folder: Path, columns: list[dict[str, str]]) -> str:
    """The kind's CRD rewritten with ``columns``; its file."""
    crd = copy.deepcopy(CRD)
    crd["spec"]["versions"][0]["additionalPrinterColumns"] = columns
    file = folder.parent.parent / "crds" / "web.yaml"
    file.write_text(yaml.safe_dump(crd, sort_keys=False))
    return str(file)


def test_a_crd_without_a_ready_column_is_a_warning_at_its_version(tmp_path: Path) -> None:
    folder = kind_folder(tmp_path, {"cm.yaml": configmap("  a: b\n")})
    file = with_columns(folder, [{"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"}])

    findings = linter.lint([folder])

    assert [(f.file, f.line, f.severity, f.check) for f in findings] == [
        (file, line_of(Path(file).read_text(), "- name: v1"), "warning", "printer-columns")
    ]
    assert findings[0].message.startswith("spec.versions[0].additionalPrinterColumns: ")
    assert _crs.READY_COLUMNS[0]["jsonPath"] in findings[0].message  # the column to add


def test_a_ready_column_in_single_quotes_is_one(tmp_path: Path) -> None:
    folder = kind_folder(tmp_path, {"cm.yaml": configmap("  a: b\n")})
    ready = {"name": "Ready", "type": "string", "jsonPath": ".status.conditions[?(@.type == 'Ready')].status"}
    with_columns(folder, [ready])

    assert linter.lint([folder]) == []
