"""A field the schema does not declare where it stands is refused, as server-side apply refuses it."""

from __future__ import annotations

from engine.core.offline import childschemas
from tests.unit._schema_children import container, deployment, errors_at

CONTAINER = ("spec", "template", "spec", "containers", 0)


def test_volumes_under_a_container_is_an_unknown_field() -> None:
    child = deployment(containers=[container(volumes=[{"name": "data", "emptyDir": {}}])])

    problems = childschemas.check(child)

    assert errors_at(problems) == {(*CONTAINER, "volumes")}
    assert "unknown field" in str(problems[0])
    assert str(problems[0]).startswith("spec.template.spec.containers[0].volumes: ")


def test_volumes_under_the_pod_spec_is_where_it_belongs() -> None:
    child = deployment(volumes=[{"name": "data", "emptyDir": {}}])

    assert childschemas.check(child) == []


def test_an_unknown_top_level_field_is_refused() -> None:
    child = {**deployment(), "spce": {}}

    assert errors_at(childschemas.check(child)) == {("spce",)}
