"""A CEL rule of ``schema.validations`` that names a ``field`` goes on that field of the spec, where
``self`` is the field's value (as a hand-written CRD puts a rule on a field): through nested
objects and a list's items, before the rules the field's own markers write; a rule that names no
``field`` stays on the spec, and a path to no field is an error at its line."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.core.model import kinds
from engine.core.model.errors import KindError
from tests.unit import _schema_kinds

SCHEMA = """\
schema:
  spec:
    replicas: integer | immutable=true
    frontend:
      port: integer
    ports:
      - number: integer
  validations:
    - {rule: self.replicas < 9, message: fewer than 9}
    - {field: replicas, rule: self >= 0, message: not negative}
    - {field: frontend.port, rule: self > 1024, message: unprivileged}
    - {field: ports.number, rule: self != 22}
    - {field: ports, rule: self.size() < 4}
"""


def test_a_rule_goes_on_the_field_it_names(tmp_path: Path) -> None:
    spec = _schema_kinds.spec_of(_schema_kinds.crd(tmp_path, SCHEMA))
    fields = spec["properties"]

    assert spec["x-kubernetes-validations"][0] == {"rule": "self.replicas < 9", "message": "fewer than 9"}
    assert fields["replicas"]["x-kubernetes-validations"] == [
        {"rule": "self >= 0", "message": "not negative"},
        {"rule": "self == oldSelf", "message": "is immutable"},
    ]
    assert fields["frontend"]["properties"]["port"]["x-kubernetes-validations"] == [
        {"rule": "self > 1024", "message": "unprivileged"}
    ]
    assert fields["ports"]["items"]["properties"]["number"]["x-kubernetes-validations"] == [
        {"rule": "self != 22"}
    ]
    assert fields["ports"]["x-kubernetes-validations"] == [{"rule": "self.size() < 4"}]


# Line 7 is "schema:"; with a map field added the validations begin at line 15, the rule at 16.
@pytest.mark.parametrize(
    ("field", "said"),
    [
        ("replicsa", "schema.validations[0].field: spec has no field 'replicsa'"),
        ("frontend.prot", "schema.validations[0].field: spec.frontend has no field 'prot'"),
        ("labels.app", "schema.validations[0].field: spec.labels is a map: its values have no field names"),
    ],
)
def test_a_rule_on_no_field_is_an_error_at_its_line(tmp_path: Path, field: str, said: str) -> None:
    text = SCHEMA.split("  validations:")[0].replace("  spec:\n", "  spec:\n    labels: map[string]string\n")
    folder = _schema_kinds.folder(
        tmp_path, f"{text}  validations:\n    - {{field: {field}, rule: self > 1}}\n"
    )
    with pytest.raises(KindError) as raised:
        kinds.load_kind(folder)
    assert str(raised.value).startswith(f"{folder / kinds.KIND_FILE}:16: {said}"), str(raised.value)
