"""A mistake in a kind.yaml schema is a load error naming kind.yaml, the line and the field it is in."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.core.model import kinds
from engine.core.model.errors import KindError
from tests.unit import _schema_kinds

# Line 7 is "schema:", 8 "  spec:", 9 the first field; the expected text follows "kind.yaml:LINE: ".
CASES = [
    ("    size: strin\n", 9, "schema.spec.size: unknown type 'strin'"),
    ("    size: integer | minimun=0\n", 9, "schema.spec.size: unknown marker 'minimun'"),
    (
        "    size: string | minimum=0\n",
        9,
        "schema.spec.size: minimum applies to integer, number and intOrString fields, not string",
    ),
    ("    size: intOrString | enum=1,a\n", 9, "schema.spec.size: enum applies to string, integer and number"),
    ("    size: intOrString | default=-1 minimum=0\n", 9, "schema.spec.size: the default -1 is refused"),
    ("    size: integer | default=abc\n", 9, "schema.spec.size: default: 'abc' is not a valid integer"),
    ("    size: integer | default=-1 minimum=0\n", 9, "schema.spec.size: the default -1 is refused: "),
    ('    name: string | pattern="("\n', 9, "schema.spec.name: pattern: invalid pattern '('"),
    ("    name: string | required\n", 9, "schema.spec.name: 'required' is not a marker: write name=value"),
    ("    name: string | required=yes\n", 9, "schema.spec.name: required: 'yes' is not a valid boolean"),
    ("    name: string | maxLength=2 maxLength=3\n", 9, "schema.spec.name: the marker maxLength is given"),
    ("    n: integer\n    deep:\n      tags: '[]strig'\n", 11, "schema.spec.deep.tags: unknown type 'strig'"),
    ("    ports: [integer, string]\n", 9, "schema.spec.ports: "),
    ("    Bad-Name: string\n", 9, "schema.spec.Bad-Name: 'Bad-Name' is not valid"),
    (
        '    items: "[]Node"\n  types:\n    Node: {next: Node}\n',
        11,
        "schema.types.Node.next: the type Node contains",
    ),
    ("    size: integer\n  sepc: {}\n", 10, "schema.sepc: unknown field 'sepc'"),
    # Bounds JSON cannot hold, which the API server would drop or refuse as it reads the CRD.
    ("    size: number | minimum=nan\n", 9, "schema.spec.size: minimum: 'nan' is not a finite number"),
    ("    size: number | maximum=inf\n", 9, "schema.spec.size: maximum: 'inf' is not a finite number"),
    ("    size: number | default=-Infinity\n", 9, "schema.spec.size: default: '-Infinity' is not a finite"),
    ("    size: number | enum=1,NaN\n", 9, "schema.spec.size: enum: 'NaN' is not a finite number"),
    # A format the API server does not check, or not of the field's type, would check nothing.
    ("    mail: string | format=emial\n", 9, "schema.spec.mail: format: 'emial' is not a format of string"),
    (
        "    size: integer | format=double\n",
        9,
        "schema.spec.size: format: 'double' is not a format of integer",
    ),
    ("    size: number | format=email\n", 9, "schema.spec.size: format: 'email' is not a format of number"),
]


@pytest.mark.parametrize(("fields", "line", "said"), CASES, ids=[said for _, _, said in CASES])
def test_schema_mistakes_are_errors_at_their_line_and_field(
    tmp_path: Path, fields: str, line: int, said: str
) -> None:
    folder = _schema_kinds.folder(tmp_path, "schema:\n  spec:\n" + fields)
    with pytest.raises(KindError) as raised:
        kinds.load_kind(folder)
    assert str(raised.value).startswith(f"{folder / kinds.KIND_FILE}:{line}: {said}"), str(raised.value)


def test_a_schema_in_the_core_group_is_an_error_at_the_parents_api_version(tmp_path: Path) -> None:
    folder = _schema_kinds.folder(tmp_path, "schema:\n  spec: {}\n")
    text = (folder / kinds.KIND_FILE).read_text().replace("shop.example.com/v1", "v1")
    (folder / kinds.KIND_FILE).write_text(text)
    with pytest.raises(KindError) as raised:
        kinds.load_kind(folder)
    # A core-group parent is built into Kubernetes: refused before its schema is read.
    said = "parent.apiVersion: Shop (v1) is built"
    assert str(raised.value).startswith(f"{folder / kinds.KIND_FILE}:4: {said}"), str(raised.value)
