"""The schema dialect of CustomResourceDefinitions, checked as the API server checks it.

A CRD's ``openAPIV3Schema`` is JSON Schema draft 4 as OpenAPI v3 narrowed it, plus the
Kubernetes extensions (``nullable``, ``x-kubernetes-int-or-string``,
``x-kubernetes-preserve-unknown-fields``, ``x-kubernetes-embedded-resource``,
``x-kubernetes-list-type``).  ``jsonschema`` walks the schema; ``keywords`` gives it the
keywords whose meaning differs from plain JSON Schema (with patterns and formats read as
Go reads them, ``formats``), so that a CR refused here is one the API server would refuse
too.  This module makes the validators of that dialect and adds what the server does
around a schema:

- ``strict`` closes every object the server would prune, so an unknown field is reported
  as ``kubectl``'s strict field validation reports it, instead of silently vanishing;
  ``pruned`` names the fields of a value the server would drop, by the same rule;
- ``SCHEMA_FORMAT`` is what a CRD's schema may itself say, so a broken schema is the
  CRD's error when it is read.

The same keywords serve documents that declare a JSON Schema ``$schema`` of their own
(``kind.schema.json``, draft 2020-12): ``validator_for`` picks the draft.

CEL rules (``x-kubernetes-validations``) are ``engine.core.offline.validation_rules``.
"""

from __future__ import annotations

import copy
from typing import Any

import jsonschema
import jsonschema.validators
from jsonschema.exceptions import ValidationError
from jsonschema.protocols import Validator

from engine.core.model.crds.keywords import KEYWORDS, Schema, shown

# The dialect as other modules read it (``Schema`` and ``shown`` are the keywords', named here too).
__all__ = [
    "SCHEMA_FORMAT",
    "JsonSchemaValidator",
    "OpenApiValidator",
    "Schema",
    "problems",
    "pruned",
    "shown",
    "strict",
    "validator_for",
]


def _is_integer(checker: Any, instance: Any) -> bool:
    # 2.0 is an integer in JSON (and to the API server's decoder), True is not.
    if isinstance(instance, bool):
        return False
    return isinstance(instance, int) or (isinstance(instance, float) and instance.is_integer())


OpenApiValidator = jsonschema.validators.extend(  # type: ignore[no-untyped-call]
    jsonschema.Draft4Validator,
    validators=KEYWORDS,
    type_checker=jsonschema.Draft4Validator.TYPE_CHECKER.redefine("integer", _is_integer),
)
JsonSchemaValidator = jsonschema.validators.extend(  # type: ignore[no-untyped-call]
    jsonschema.Draft202012Validator,
    validators={k: v for k, v in KEYWORDS.items() if k not in ("minimum", "maximum")},
)


def validator_for(schema: Schema) -> Validator:
    """The validator of ``schema``: its own draft if it names one (``$schema``), else the CRD dialect."""
    cls = JsonSchemaValidator if "$schema" in schema else OpenApiValidator
    return cls(schema)  # type: ignore[no-any-return]


def problems(schema: Schema, value: Any) -> list[ValidationError]:
    """Every way ``value`` breaks ``schema``, shallowest field first."""
    return sorted(validator_for(schema).iter_errors(value), key=lambda e: len(e.absolute_path))


# -- what the API server would prune --------------------------------------------------------------

# ObjectMeta as a CR may give it: the CRD schema only narrows name and generateName, and
# the server reads the rest as ObjectMeta, refusing (in strict mode) what ObjectMeta lacks.
_STRING_MAP: Schema = {"type": "object", "additionalProperties": {"type": "string"}}
_DNS_LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_LABEL_NAME = "[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?"
_LABELS: Schema = {
    "type": "object",
    "propertyNames": {"pattern": rf"^({_DNS_LABEL}(\.{_DNS_LABEL})*/)?{_LABEL_NAME}$"},
    "additionalProperties": {"type": "string", "maxLength": 63, "pattern": f"^({_LABEL_NAME})?$"},
}
_OBJECT_META: Schema = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        # A custom resource's name is a DNS subdomain, as the API server checks it.
        "name": {"type": "string", "maxLength": 253, "pattern": rf"^{_DNS_LABEL}(\.{_DNS_LABEL})*$"},
        "generateName": {"type": "string"},
        "namespace": {"type": "string", "maxLength": 63, "pattern": f"^{_DNS_LABEL}$"},
        "labels": _LABELS,
        "annotations": _STRING_MAP,
        "finalizers": {"type": "array", "items": {"type": "string"}},
        "ownerReferences": {"type": "array", "items": {"type": "object"}},
        "uid": {"type": "string"},
        "resourceVersion": {"type": "string"},
        "generation": {"type": "integer", "format": "int64"},
        "creationTimestamp": {"type": "string", "nullable": True},
        "deletionTimestamp": {"type": "string", "nullable": True},
        "deletionGracePeriodSeconds": {"type": "integer", "format": "int64"},
        "managedFields": {"type": "array", "items": {"type": "object"}},
        "selfLink": {"type": "string"},
    },
}
_TYPE_META = {"apiVersion": {"type": "string"}, "kind": {"type": "string"}}
_RESOURCE_FIELDS = ("apiVersion", "kind", "metadata")


def strict(schema: Schema) -> Schema:
    """``schema`` (a CRD's ``openAPIV3Schema``) with every object the server would prune closed.

    The API server drops fields a structural schema does not name, unless the object
    says ``x-kubernetes-preserve-unknown-fields`` or has ``additionalProperties``; with
    strict field validation it refuses them instead, and so does the copy returned here.
    A resource's own ``apiVersion``, ``kind`` and ``metadata`` (at the root and in
    embedded resources) are always known.
    """
    return _closed(copy.deepcopy(schema), resource=True)


def pruned(schema: Schema, value: Any) -> list[tuple[str | int, ...]]:
    """The paths of the fields of ``value`` (a whole resource) the API server would drop under
    ``schema`` (a CRD's ``openAPIV3Schema``), shallowest first: those ``strict`` refuses as unknown.
    A field inside one that is dropped is not named again."""
    return [
        tuple(error.absolute_path)
        for error in problems(strict(schema), value)
        if error.validator == "additionalProperties" and error.validator_value is False
    ]


def kept(schema: Schema, value: dict[str, Any]) -> dict[str, Any]:
    """``value`` (a whole resource) as the API server keeps it under ``schema``: without the fields
    ``pruned`` names, found by one walk over the value rather than by validating it, fast enough
    for every object a conversion writes.  ``metadata``, ``apiVersion`` and ``kind`` are the
    server's, as are an embedded resource's."""
    result = _kept(value, schema)
    result.update((name, value[name]) for name in _RESOURCE_FIELDS if name in value)
    return dict(result)


def _kept(value: Any, schema: Schema) -> Any:
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [_kept(item, schema["items"]) for item in value]
    if not isinstance(value, dict):
        return value
    properties: dict[str, Schema] = schema.get("properties") or {}
    additional = schema.get("additionalProperties")
    open_ = bool(schema.get("x-kubernetes-preserve-unknown-fields")) or additional is True
    embedded = bool(schema.get("x-kubernetes-embedded-resource"))
    result: dict[str, Any] = {}
    for key, item in value.items():
        if key in properties:
            result[key] = _kept(item, properties[key])
        elif isinstance(additional, dict):
            result[key] = _kept(item, additional)
        elif open_ or (embedded and key in _RESOURCE_FIELDS):
            result[key] = item
    return result


def _closed(schema: Schema, *, resource: bool) -> Schema:
    resource = resource or bool(schema.get("x-kubernetes-embedded-resource"))
    if resource:
        properties = schema.setdefault("properties", {})
        for name, sub in _TYPE_META.items():
            properties.setdefault(name, dict(sub))
        metadata = properties.get("metadata") or {}
        given = metadata.get("properties") or {}
        # The CRD may narrow name and generateName; ObjectMeta's own rules hold all the same.
        narrowed = {
            k: {"allOf": [_OBJECT_META["properties"][k], given[k]]}
            for k in ("name", "generateName")
            if k in given
        }
        # A copy of its own: ObjectMeta's schema is shared, and never closed (its own rules hold).
        properties["metadata"] = copy.deepcopy(
            {**_OBJECT_META, "properties": {**_OBJECT_META["properties"], **narrowed}}
        )
    for name, sub in (schema.get("properties") or {}).items():
        if isinstance(sub, dict) and not (resource and name == "metadata"):
            schema["properties"][name] = _closed(sub, resource=False)
    for keyword in ("items", "additionalProperties"):
        if isinstance(schema.get(keyword), dict):
            schema[keyword] = _closed(schema[keyword], resource=False)
    is_object = schema.get("type") == "object" or "properties" in schema
    if (
        is_object
        and "additionalProperties" not in schema
        and not schema.get("x-kubernetes-preserve-unknown-fields")
    ):
        schema["additionalProperties"] = False
    return schema


# -- what a CRD's schema may say --------------------------------------------------------------------

_NODE: Schema = {"$ref": "#/definitions/schema"}
_NODES: Schema = {"type": "array", "items": _NODE}
_COUNT: Schema = {"type": "integer", "minimum": 0}
_FLAG: Schema = {"type": "boolean"}
_NAMES: Schema = {"type": "array", "items": {"type": "string"}}

# JSONSchemaProps as apiextensions.k8s.io/v1 decodes it: a field it lacks, a type it does not
# know, a list given as a string or a pattern RE2 cannot compile is the CRD's error, found
# when the CRD is read, not a crash when a CR is checked against it.
SCHEMA_FORMAT: Schema = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "id": {"type": "string"},
        "$schema": {"type": "string"},
        "$ref": {"type": "string"},
        "description": {"type": "string"},
        "title": {"type": "string"},
        "type": {"enum": ["object", "array", "string", "integer", "number", "boolean"]},
        "format": {"type": "string"},
        "default": {},
        "example": {},
        "enum": {"type": "array"},
        "maximum": {"type": "number"},
        "minimum": {"type": "number"},
        "exclusiveMaximum": _FLAG,
        "exclusiveMinimum": _FLAG,
        "multipleOf": {"type": "number", "minimum": 0, "exclusiveMinimum": True},
        "maxLength": _COUNT,
        "minLength": _COUNT,
        "pattern": {"type": "string", "x-stencil-regex": True},
        "maxItems": _COUNT,
        "minItems": _COUNT,
        "uniqueItems": _FLAG,
        "maxProperties": _COUNT,
        "minProperties": _COUNT,
        "required": _NAMES,
        "items": _NODE,
        "allOf": _NODES,
        "anyOf": _NODES,
        "oneOf": _NODES,
        "not": _NODE,
        "properties": {"type": "object", "additionalProperties": _NODE},
        "additionalProperties": {"type": ["boolean", "object"], "anyOf": [_FLAG, _NODE]},
        "patternProperties": {
            "type": "object",
            "propertyNames": {"x-stencil-regex": True},
            "additionalProperties": _NODE,
        },
        "dependencies": {"type": "object"},
        "additionalItems": {"type": ["boolean", "object"]},
        "definitions": {"type": "object", "additionalProperties": _NODE},
        "externalDocs": {"type": "object"},
        "nullable": _FLAG,
        "x-kubernetes-preserve-unknown-fields": _FLAG,
        "x-kubernetes-embedded-resource": _FLAG,
        "x-kubernetes-int-or-string": _FLAG,
        "x-kubernetes-list-type": {"enum": ["atomic", "set", "map"]},
        "x-kubernetes-list-map-keys": _NAMES,
        "x-kubernetes-map-type": {"enum": ["granular", "atomic"]},
        "x-kubernetes-validations": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["rule"],
                "properties": {
                    "rule": {"type": "string", "minLength": 1},
                    "message": {"type": "string"},
                    "messageExpression": {"type": "string"},
                    "fieldPath": {"type": "string"},
                    "reason": {
                        "enum": [
                            "FieldValueInvalid",
                            "FieldValueForbidden",
                            "FieldValueRequired",
                            "FieldValueDuplicate",
                        ]
                    },
                    "optionalOldSelf": _FLAG,
                },
            },
        },
    },
}
