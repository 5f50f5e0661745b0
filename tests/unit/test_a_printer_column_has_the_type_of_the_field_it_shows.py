"""A printer column that ``schema:`` writes has the type of the field its jsonPath names, unless it
says one: an integer field is an integer column (kubectl aligns and sorts it as a number), a
date-time string a date column; a path to no field, or through a list, stays a string column."""

from __future__ import annotations

from pathlib import Path

from tests.unit import _schema_kinds

SCHEMA = """\
schema:
  spec:
    replicas: integer | default=1
    ratio: number
    enabled: boolean
    image: string
    ports: "[]integer"
  status:
    ready: integer
  printerColumns:
    - {name: Replicas, jsonPath: .spec.replicas}
    - {name: Ratio, jsonPath: .spec.ratio}
    - {name: Enabled, jsonPath: .spec.enabled}
    - {name: Image, jsonPath: .spec.image}
    - {name: Up, jsonPath: .status.ready}
    - {name: First, jsonPath: ".spec.ports[0]"}
    - {name: Nowhere, jsonPath: .spec.missing}
    - {name: Told, jsonPath: .spec.replicas, type: string}
    - {name: Made, jsonPath: .metadata.creationTimestamp}
"""


def test_a_printer_column_has_the_type_of_the_field_it_shows(tmp_path: Path) -> None:
    generated = _schema_kinds.crd(tmp_path, SCHEMA)

    columns = generated["spec"]["versions"][0]["additionalPrinterColumns"]
    types = {column["name"]: column["type"] for column in columns}
    assert types["Replicas"] == "integer"
    assert types["Ratio"] == "number"
    assert types["Enabled"] == "boolean"
    assert types["Image"] == "string"
    assert types["Up"] == "integer"
    assert types["First"] == "string"
    assert types["Nowhere"] == "string"
    assert types["Told"] == "string"
    assert types["Made"] == "string"
