"""A field the schema requires is reported where it is missing."""

from __future__ import annotations

from engine.core import childschemas
from tests.unit._schema_children import deployment, errors_at


def test_a_container_without_a_name_is_refused_at_its_name() -> None:
    child = deployment(containers=[{"image": "nginx"}])

    problems = childschemas.check(child)

    assert errors_at(problems) == {("spec", "template", "spec", "containers", 0, "name")}
    assert "required" in problems[0].message


def test_every_missing_field_is_reported() -> None:
    child = deployment()
    del child["spec"]["selector"], child["spec"]["template"]

    assert errors_at(childschemas.check(child)) == {("spec", "selector"), ("spec", "template")}
