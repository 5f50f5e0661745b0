"""A field the schema requires is reported on the object that lacks it, by name."""

from __future__ import annotations

from engine.core.offline import childschemas
from tests.unit._schema_children import deployment, errors_at


def test_a_container_without_a_name_is_refused_naming_the_field() -> None:
    child = deployment(containers=[{"image": "nginx"}])

    problems = childschemas.check(child)

    assert errors_at(problems) == {("spec", "template", "spec", "containers", 0)}
    assert "required" in problems[0].message
    assert "'name'" in problems[0].message


def test_every_missing_field_is_reported() -> None:
    child = deployment()
    del child["spec"]["selector"], child["spec"]["template"]

    problems = childschemas.check(child)

    assert errors_at(problems) == {("spec",)}
    assert len(problems) == 2
    assert "'selector'" in problems[0].message + problems[1].message
    assert "'template'" in problems[0].message + problems[1].message
