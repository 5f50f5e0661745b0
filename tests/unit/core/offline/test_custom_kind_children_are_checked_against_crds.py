"""A child of a custom kind is checked against its CRD's schema, its metadata as any object's."""

from __future__ import annotations

from typing import Any

from engine.core.offline import childschemas
from engine.core.offline.admission import OfflineCrds
from tests.unit import _crs
from tests.unit._schema_children import errors_at, metadata

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        **_crs.OBJECT_FIELDS,
        "spec": {
            "type": "object",
            "required": ["size", "mode"],
            "x-kubernetes-validations": [{"rule": "self.size % 2 == 1", "message": "size must be odd"}],
            "properties": {
                "mode": {"type": "string", "default": "lru"},
                "size": {"type": "integer", "minimum": 1, "exclusiveMaximum": True, "maximum": 10},
                "port": {
                    "x-kubernetes-int-or-string": True,
                    "anyOf": [{"type": "integer"}, {"type": "string"}],
                },
                "tier": {"type": "string", "enum": ["gold", "silver"]},
                "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
            },
        },
    },
}
CRD = _crs.definition("example.com", {"kind": "Cache", "plural": "caches"}, SCHEMA)
CRDS = OfflineCrds([CRD])


def cache(**spec: Any) -> dict[str, Any]:
    return {"apiVersion": "example.com/v1", "kind": "Cache", "metadata": metadata("shop-cache"), "spec": spec}


def test_a_child_its_crd_accepts_has_no_problem() -> None:
    child = cache(size=3, port="redis", tier="gold", extra={"anything": {"goes": [1]}})

    assert childschemas.check(child, CRDS) == []


def test_unknown_fields_wrong_types_enums_and_required_fields_are_refused() -> None:
    child = cache(port=[6379], tier="bronze", sise=3)

    assert errors_at(childschemas.check(child, CRDS)) == {
        ("spec",),  # size is missing
        ("spec", "port"),
        ("spec", "tier"),
        ("spec", "sise"),
    }


def test_an_openapi_exclusive_maximum_excludes_the_maximum() -> None:
    assert childschemas.check(cache(size=9), CRDS) == []
    assert errors_at(childschemas.check(cache(size=10), CRDS)) == {("spec", "size")}


def test_the_crds_defaults_are_filled_in_before_required_fields_are_checked() -> None:
    child = cache(size=3)

    assert "mode" not in child["spec"]
    assert childschemas.check(child, CRDS) == []


def test_the_crds_cel_rules_are_run_on_the_child() -> None:
    problems = childschemas.check(cache(size=4), CRDS)

    assert errors_at(problems) == {("spec",)}
    assert "size must be odd" in problems[0].message


def test_metadata_is_checked_as_object_metadata_whatever_the_crd_says() -> None:
    child = cache(size=3)
    child["metadata"] = {**child["metadata"], "name": "Shop_Cache", "lables": {}}

    assert errors_at(childschemas.check(child, CRDS)) == {("metadata", "name"), ("metadata", "lables")}


def test_a_kind_without_a_schema_is_a_warning_not_an_error() -> None:
    problems = childschemas.check(cache(size=3))

    assert [(p.path, p.severity) for p in problems] == [(("kind",), "warning")]
