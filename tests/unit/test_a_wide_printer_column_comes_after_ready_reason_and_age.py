"""A printer column of ``schema:`` that only ``kubectl get -o wide`` shows (a priority above 0)
comes after Ready, Reason and Age, where kubectl's own kinds put theirs; the others come before
them, each in the order given."""

from __future__ import annotations

from pathlib import Path

from tests.unit import _schema_kinds

SCHEMA = """\
schema:
  spec:
    image: string
    note: string
  status:
    progress: integer
  printerColumns:
    - {name: Note, jsonPath: .spec.note, priority: 1}
    - {name: Progress, jsonPath: .status.progress}
    - {name: Image, jsonPath: .spec.image, priority: 0}
"""


def test_a_wide_printer_column_comes_after_ready_reason_and_age(tmp_path: Path) -> None:
    columns = _schema_kinds.crd(tmp_path, SCHEMA)["spec"]["versions"][0]["additionalPrinterColumns"]
    assert [column["name"] for column in columns] == ["Progress", "Image", "Ready", "Reason", "Age", "Note"]
