"""A CRD's schema compiled into a yes-or-no check (``predicates``) says "valid" exactly when
``structural.problems`` finds nothing, for every shipped CRD and many near variants of its
examples, and for a schema using every keyword the predicate compiles; so does a built-in
kind's (its OpenAPI definitions, which refer to each other), for near variants of the children
the shipped kinds render and of a few more, and a schema that refers to itself."""

from __future__ import annotations

from typing import Any

import pytest

from engine.core.model.crds import predicates, structural
from engine.core.offline import admission
from engine.core.offline.childschemas.snapshot import builtin_predicate, builtin_validator, snapshot
from tests.unit import _shipped

EVERY_KEYWORD: structural.Schema = {
    "type": "object",
    "required": ["name"],
    "minProperties": 1,
    "maxProperties": 14,
    "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": 20, "pattern": "^[a-z]+$"},
        "port": {"type": "integer", "format": "int32", "minimum": 1, "maximum": 65535, "multipleOf": 1},
        "size": {"x-kubernetes-int-or-string": True, "anyOf": [{"type": "integer"}, {"type": "string"}]},
        "mode": {"type": "string", "nullable": True, "not": {"enum": ["yellow"]}},
        "level": {"enum": ["a", 1]},
        "either": {"anyOf": [{"type": "string", "minLength": 2}, {"type": "integer"}]},
        "fixed": {"const": 1},
        "tags": {
            "type": "array",
            "maxItems": 2,
            "minItems": 1,
            "x-kubernetes-list-type": "set",
            "items": {"type": "string"},
        },
        "pick": {"oneOf": [{"type": "integer"}, {"minimum": 0}]},
        "both": {"allOf": [{"type": "number", "exclusiveMinimum": True, "minimum": 0}, {"maximum": 100}]},
        "labels": {
            "type": "object",
            "propertyNames": {"pattern": "^[a-z]+$"},
            "additionalProperties": {"type": "string"},
        },
        "when": {"type": "string", "format": "date-time"},
        "items": {
            "type": "array",
            "uniqueItems": True,
            "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["a"],
            "items": {
                "type": "object",
                "properties": {"a": {"type": "integer"}},
                "additionalProperties": False,
            },
        },
        "embedded": {
            "type": "object",
            "x-kubernetes-embedded-resource": True,
            "x-kubernetes-preserve-unknown-fields": True,
        },
    },
    "additionalProperties": False,
}
EVERY_KEYWORD_EXAMPLE = {
    "name": "abc",
    "port": 80,
    "size": "1Gi",
    "mode": "a",
    "fixed": 1,
    "tags": ["x"],
    "pick": -1,
    "level": 1,
    "either": "ab",
    "both": 5,
    "labels": {"app": "web"},
    "when": "2024-01-01T00:00:00Z",
    "items": [{"a": 1}],
    "embedded": {"apiVersion": "v1", "kind": "ConfigMap"},
}


def cases() -> list[tuple[str, structural.Schema, Any]]:
    found = [("every keyword", EVERY_KEYWORD, EVERY_KEYWORD_EXAMPLE)]
    for kind, schema in _shipped.schemas().items():
        found += [(kind, structural.strict(schema), example) for example in _shipped.examples(kind)]
    return found


def agrees(valid: predicates.Predicate, full: predicates.Predicate, example: Any) -> None:
    """``valid`` answers as ``full`` on every near variant of ``example``, and both answers come up,
    so both were held to the full check."""
    said = {True: 0, False: 0}
    for value in _shipped.variants(example):
        expected = full(value)
        assert valid(value) is expected, value
        said[expected] += 1
    assert said[True] and said[False]


@pytest.mark.parametrize(("name", "schema", "example"), cases(), ids=lambda case: str(case)[:30])
def test_the_predicate_says_valid_exactly_when_no_problem_is_found(
    name: str, schema: structural.Schema, example: Any
) -> None:
    valid = predicates.compile(schema)
    assert valid is not None, f"{name}: the schema should compile"
    agrees(valid, lambda value: not structural.problems(schema, value), example)


def test_the_object_check_agrees_too() -> None:
    valid = predicates.compile(admission.OfflineCrds._OBJECT)
    assert valid is not None
    for value in _shipped.variants({"metadata": {"name": "a", "namespace": "b"}}):
        assert valid(value) is (not structural.problems(admission.OfflineCrds._OBJECT, value))


# A list that refers to itself: a reference reached again while it is compiled.
LINKED: structural.Schema = {
    "definitions": {
        "node": {
            "type": "object",
            "properties": {
                "value": {"type": "integer", "minimum": 0},
                "next": {"$ref": "#/definitions/node"},
            },
            "additionalProperties": False,
        }
    },
    "$ref": "#/definitions/node",
    "type": "string",  # beside a $ref, ignored (the dialect is draft 4's)
}


def test_a_schema_that_refers_to_itself_compiles_and_agrees() -> None:
    valid = predicates.compile(LINKED)
    assert valid is not None
    agrees(valid, lambda value: not structural.problems(LINKED, value), {"value": 1, "next": {"value": 2}})


# Children of kinds the shipped templates do not render, beside those they do.
MORE_CHILDREN = [
    {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "once", "labels": {"app": "web"}},
        "spec": {
            "backoffLimit": 2,
            "template": {
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [{"name": "run", "image": "busybox", "args": ["true"]}],
                }
            },
        },
    },
    {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "web"},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
            "minReplicas": 1,
            "maxReplicas": 5,
            "metrics": [
                {
                    "type": "Resource",
                    "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}},
                }
            ],
        },
    },
    {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": {"name": "web", "annotations": {"a": "b"}},
        "spec": {
            "rules": [
                {
                    "host": "web.example.com",
                    "http": {
                        "paths": [
                            {
                                "path": "/",
                                "pathType": "Prefix",
                                "backend": {"service": {"name": "web", "port": {"number": 80}}},
                            }
                        ]
                    },
                }
            ]
        },
    },
    {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": "web"},
        "spec": {"maxUnavailable": "10%", "selector": {"matchLabels": {"app": "web"}}},
    },
]


def built_in_children() -> list[dict[str, Any]]:
    """One rendered child of each built-in kind the shipped kinds' examples render, and more."""
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for child in [*_shipped.children(), *MORE_CHILDREN]:
        found.setdefault((child["apiVersion"], child["kind"]), child)
    return list(found.values())


@pytest.mark.parametrize("child", built_in_children(), ids=lambda child: child["kind"])
def test_a_built_in_kinds_predicate_agrees_with_its_full_check(child: dict[str, Any]) -> None:
    name = snapshot().kinds[child["apiVersion"]][child["kind"]]
    valid = builtin_predicate(name)
    assert valid is not None, f"{name} should compile"
    validator = builtin_validator(name)
    agrees(valid, lambda value: next(validator.iter_errors(value), None) is None, child)


@pytest.mark.parametrize("nullable", [False, True])
def test_a_type_check_kept_for_one_python_type_never_answers_for_a_float(nullable: bool) -> None:
    """A type's answer is kept by Python type, so one predicate is asked in turn about values of
    the same and of other types: 2.0 is an integer after 2.5 was not, True is not after 1 was."""
    schema: structural.Schema = {"type": "integer", "nullable": nullable}
    valid = predicates.compile(schema)
    assert valid is not None
    said = []
    for value in [1, 2.5, 2.0, 3.5, True, "2", None, 7, 4.0, False]:
        said.append(valid(value))
        assert said[-1] is (not structural.problems(schema, value)), value
    assert said[:4] == [True, False, True, False] and said[4:6] == [False, False]
