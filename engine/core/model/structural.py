"""The schema dialect of CustomResourceDefinitions, checked as the API server checks it.

A CRD's ``openAPIV3Schema`` is JSON Schema draft 4 as OpenAPI v3 narrowed it, plus the
Kubernetes extensions (``nullable``, ``x-kubernetes-int-or-string``,
``x-kubernetes-preserve-unknown-fields``, ``x-kubernetes-embedded-resource``,
``x-kubernetes-list-type``).  ``jsonschema`` walks the schema; this module gives it the
keywords whose meaning differs from plain JSON Schema, so that a CR refused here is one
the API server would refuse too:

- patterns are matched with RE2, as Go's ``regexp`` does: in linear time whatever the
  value, and with RE2's syntax (a pattern Python would take but Go would not is an error);
- ``format`` checks what ``k8s.io/kube-openapi``'s ``strfmt`` registry checks (unknown
  formats pass, as they do there), and ``int32``/``int64`` bound integers;
- list types ``set`` and ``map`` refuse duplicates;
- ``strict`` closes every object the server would prune, so an unknown field is reported
  as ``kubectl``'s strict field validation reports it, instead of silently vanishing.

Every problem is a ``jsonschema.ValidationError`` whose message is written for a person
and whose ``absolute_path`` is the field it is about (an unknown field's own key, a
duplicate's own index), so a caller holding the YAML nodes can give its line.

The same keywords serve documents that declare a JSON Schema ``$schema`` of their own
(``kind.schema.json``, draft 2020-12): ``validator_for`` picks the draft.

CEL rules (``x-kubernetes-validations``) are ``engine.core.offline.validation_rules``.
"""

from __future__ import annotations

import base64
import binascii
import copy
import datetime
import difflib
import functools
import ipaddress
import json
from collections.abc import Callable, Iterator, Sized
from typing import Any, cast

import jsonschema
import jsonschema.validators
import re2
from jsonschema.exceptions import ValidationError
from jsonschema.protocols import Validator

Schema = dict[str, Any]
Keyword = Callable[[Validator, Any, Any, Schema], Iterator[ValidationError]]

# -- patterns, as Go's regexp reads them ----------------------------------------------------

_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False  # a bad pattern is reported to the user, not logged by the C++ library


@functools.lru_cache(maxsize=1024)
def compiled(pattern: str) -> Any:
    """``pattern`` compiled with RE2 (once per pattern); raises ``ValueError`` naming what is wrong."""
    try:
        return re2.compile(pattern, _RE2_OPTIONS)
    except re2.error as error:
        reason = error.args[0].decode() if error.args and isinstance(error.args[0], bytes) else str(error)
        raise ValueError(f"invalid pattern {pattern!r}: {reason}") from None


def search(pattern: str, text: str) -> bool:
    """Whether ``pattern`` matches somewhere in ``text`` (unanchored, as JSON Schema and Go read it)."""
    return compiled(pattern).search(text) is not None


# -- formats, as k8s.io/kube-openapi's strfmt checks them ----------------------------------------

_INT_RANGES = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}


def _ip(version: int) -> Callable[[str], bool]:
    def check(text: str) -> bool:
        try:
            return ipaddress.ip_address(text).version == version
        except ValueError:
            return False

    return check


def _cidr(text: str) -> bool:
    # Go's net.ParseCIDR takes host bits (10.0.0.1/8) but wants the prefix length.
    if "/" not in text:
        return False
    try:
        ipaddress.ip_interface(text)
    except ValueError:
        return False
    return True


def _base64(text: str) -> bool:
    try:
        base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def _date(text: str) -> bool:
    try:
        datetime.date.fromisoformat(text)
    except ValueError:
        return False
    return search(r"^\d{4}-\d{2}-\d{2}$", text)


def _date_time(text: str) -> bool:
    if not search(r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$", text):
        return False
    try:
        datetime.datetime.fromisoformat(text.upper().replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


def _hostname(text: str) -> bool:
    labels = text.rstrip(".").split(".")
    return len(text) <= 255 and all(
        search(r"^[A-Za-z0-9]([-A-Za-z0-9]{0,61}[A-Za-z0-9])?$", label) for label in labels
    )


def _matching(pattern: str) -> Callable[[str], bool]:
    return lambda text: search(pattern, text)


_UUID = "^(?i)[0-9a-f]{8}-?[0-9a-f]{4}-?%s[0-9a-f]{3}-?%s[0-9a-f]{3}-?[0-9a-f]{12}$"
_GO_DURATION = r"([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|ms|s|m|h)"

# The formats strfmt's default registry validates; any other format is accepted as it is there.
STRING_FORMATS: dict[str, Callable[[str], bool]] = {
    "bsonobjectid": _matching("^[0-9a-fA-F]{24}$"),
    "uri": _matching(r"^([A-Za-z][A-Za-z0-9+.-]*:|/)[^\s]*$"),
    "email": _matching(r"^([^<>@\s]+ )*<?[^<>@\s]+@[^<>@\s]+>?$"),
    "hostname": _hostname,
    "ipv4": _ip(4),
    "ipv6": _ip(6),
    "cidr": _cidr,
    "mac": _matching(
        r"^([0-9A-Fa-f]{2}([:-])[0-9A-Fa-f]{2}(([:-])[0-9A-Fa-f]{2}){4}((([:-])[0-9A-Fa-f]{2}){2}"
        r"((([:-])[0-9A-Fa-f]{2}){12})?)?|[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}"
        r"((\.[0-9A-Fa-f]{4})(\.[0-9A-Fa-f]{4}){5}?)?)$"
    ),
    "uuid": _matching(_UUID % ("[0-9a-f]", "[0-9a-f]")),
    "uuid3": _matching(_UUID % ("3", "[0-9a-f]")),
    "uuid4": _matching(_UUID % ("4", "[89ab]")),
    "uuid5": _matching(_UUID % ("5", "[89ab]")),
    "ssn": _matching(r"^\d{3}[- ]?\d{2}[- ]?\d{4}$"),
    "hexcolor": _matching("^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$"),
    "rgbcolor": _matching(
        r"^rgb\(\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,"
        r"\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*\)$"
    ),
    "byte": _base64,
    "date": _date,
    "date-time": _date_time,
    "datetime": _date_time,
    "duration": _matching(
        rf"^([-+]?({_GO_DURATION})+|0|[0-9]+\s*(ns|us|ms|s|m|h|d|w|nanoseconds?|microseconds?|"
        r"milliseconds?|seconds?|minutes?|hours?|days?|weeks?))$"
    ),
}


# -- messages -------------------------------------------------------------------------------------


def kind_of(value: Any) -> str:
    """``"a string"``, ``"an integer"``...: what a value is, for a message."""
    if value is None:
        return "null"
    return {
        bool: "a boolean",
        int: "an integer",
        float: "a number",
        str: "a string",
        list: "a list",
        dict: "a mapping",
    }.get(type(value), type(value).__name__)


_TYPE_NAMES = {
    "object": "a mapping",
    "array": "a list",
    "string": "a string",
    "boolean": "true or false",
    "integer": "an integer",
    "number": "a number",
    "null": "null",
}


def shown(value: Any, limit: int = 80) -> str:
    """A value as a message quotes it, cut short if long."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _listed(values: list[Any]) -> str:
    return ", ".join(map(repr, values))


def _error(message: str, path: tuple[str | int, ...] = ()) -> ValidationError:
    return ValidationError(message, path=list(path))


# -- keywords -------------------------------------------------------------------------------------


def _type(validator: Validator, types: Any, instance: Any, schema: Schema) -> Iterator[ValidationError]:
    if (instance is None and schema.get("nullable")) or schema.get("x-kubernetes-int-or-string"):
        return
    names = [types] if isinstance(types, str) else list(types)
    if not any(validator.is_type(instance, name) for name in names):
        wanted = " or ".join(_TYPE_NAMES.get(name, name) for name in names)
        yield _error(f"must be {wanted}, not {kind_of(instance)}")


def _int_or_string(validator: Validator, on: Any, instance: Any, schema: Schema) -> Iterator[ValidationError]:
    if on and instance is None and schema.get("nullable"):
        return
    if on and not (validator.is_type(instance, "integer") or isinstance(instance, str)):
        yield _error(f"must be an integer or a string, not {kind_of(instance)}")


def _required(
    validator: Validator, required: Any, instance: Any, schema: Schema
) -> Iterator[ValidationError]:
    if isinstance(instance, dict):
        for name in required:
            if name not in instance:
                yield _error(f"missing required field {name!r}")


def _enum(validator: Validator, enum: Any, instance: Any, schema: Schema) -> Iterator[ValidationError]:
    if instance is None and schema.get("nullable"):
        return
    if not any(_equal(instance, option) for option in enum):
        yield _error(f"must be one of {_listed(enum)}, not {shown(instance)}")


def _const(validator: Validator, const: Any, instance: Any, schema: Schema) -> Iterator[ValidationError]:
    if not _equal(instance, const):
        yield _error(f"must be {const!r}, not {shown(instance)}")


def _equal(one: Any, other: Any) -> bool:
    """JSON equality: ``True`` is not ``1``, and ``1`` is ``1.0``."""
    if isinstance(one, bool) or isinstance(other, bool):
        return type(one) is type(other) and one == other
    if isinstance(one, dict) and isinstance(other, dict):
        return one.keys() == other.keys() and all(_equal(one[k], other[k]) for k in one)
    if isinstance(one, list) and isinstance(other, list):
        return len(one) == len(other) and all(_equal(a, b) for a, b in zip(one, other, strict=True))
    return bool(one == other)


def _not(validator: Validator, not_schema: Any, instance: Any, schema: Schema) -> Iterator[ValidationError]:
    if validator.evolve(schema=not_schema).is_valid(instance):
        if isinstance(not_schema, dict) and set(not_schema) == {"enum"}:
            yield _error(
                f"{shown(instance)} is reserved: it must not be one of {_listed(not_schema['enum'])}"
            )
        else:
            yield _error(f"{shown(instance)} must not match {json.dumps(not_schema)}")


def _number(validator: Validator, instance: Any) -> bool:
    return validator.is_type(instance, "number")


def _minimum(validator: Validator, minimum: Any, instance: Any, schema: Schema) -> Iterator[ValidationError]:
    if not _number(validator, instance):
        return
    if schema.get("exclusiveMinimum") is True and instance <= minimum:
        yield _error(f"must be greater than {minimum}, not {instance}")
    elif instance < minimum:
        yield _error(f"must be at least {minimum}, not {instance}")


def _maximum(validator: Validator, maximum: Any, instance: Any, schema: Schema) -> Iterator[ValidationError]:
    if not _number(validator, instance):
        return
    if schema.get("exclusiveMaximum") is True and instance >= maximum:
        yield _error(f"must be less than {maximum}, not {instance}")
    elif instance > maximum:
        yield _error(f"must be at most {maximum}, not {instance}")


def _multiple_of(
    validator: Validator, factor: Any, instance: Any, schema: Schema
) -> Iterator[ValidationError]:
    if _number(validator, instance) and factor and (instance / factor) != int(instance / factor):
        yield _error(f"must be a multiple of {factor}, not {instance}")


def _bound(keyword: str, kind: type, unit: str) -> Keyword:
    """min/max Length, Items or Properties: the same check over a different size."""
    at_least = keyword.startswith("min")

    def counted(bound: Any) -> str:
        return f"{bound} {unit}" if bound == 1 else f"{bound} {unit}s"

    def check(validator: Validator, bound: Any, instance: Any, schema: Schema) -> Iterator[ValidationError]:
        if not isinstance(instance, kind):
            return
        size = len(cast(Sized, instance))
        if at_least and size < bound:
            yield _error(
                "must not be empty" if bound == 1 else f"must have at least {counted(bound)}, not {size}"
            )
        elif not at_least and size > bound:
            yield _error(f"must have at most {counted(bound)}, not {size}")

    return check


def _pattern(validator: Validator, pattern: Any, instance: Any, schema: Schema) -> Iterator[ValidationError]:
    if not isinstance(instance, str):
        return
    try:
        matched = search(pattern, instance)
    except ValueError as error:
        yield _error(f"cannot check {shown(instance)}: the schema's {error}")
        return
    if not matched:
        yield _error(f"{shown(instance)} is not valid: it should match the pattern {pattern}")


def _format(validator: Validator, fmt: Any, instance: Any, schema: Schema) -> Iterator[ValidationError]:
    if validator.is_type(instance, "integer") and fmt in _INT_RANGES:
        low, high = _INT_RANGES[fmt]
        if not low <= instance <= high:
            yield _error(f"{instance} is out of range for {fmt} ({low} to {high})")
    elif isinstance(instance, str) and fmt in STRING_FORMATS and not STRING_FORMATS[fmt](instance):
        yield _error(f"{shown(instance)} is not a valid {fmt}")


def _duplicates(items: list[Any], key: Callable[[Any], Any]) -> Iterator[tuple[int, Any]]:
    """The index and key of every item whose key an earlier item already had."""
    seen: list[Any] = []
    for index, item in enumerate(items):
        found = key(item)
        if any(_equal(found, other) for other in seen):
            yield index, found
        else:
            seen.append(found)


def _unique_items(
    validator: Validator, unique: Any, instance: Any, schema: Schema
) -> Iterator[ValidationError]:
    if unique and isinstance(instance, list):
        for index, item in _duplicates(instance, lambda item: item):
            yield _error(f"{shown(item)} is listed twice", (index,))


def _list_type(
    validator: Validator, list_type: Any, instance: Any, schema: Schema
) -> Iterator[ValidationError]:
    if not isinstance(instance, list):
        return
    if list_type == "set":
        yield from _unique_items(validator, True, instance, schema)
    elif list_type == "map":
        keys = list(schema.get("x-kubernetes-list-map-keys") or ())
        for index, found in _duplicates(instance, lambda item: [_get(item, k) for k in keys]):
            named = ", ".join(f"{k}={v!r}" for k, v in zip(keys, found, strict=True))
            yield _error(f"an item with {named} is listed twice", (index,))


def _get(item: Any, key: str) -> Any:
    return item.get(key) if isinstance(item, dict) else None


def _embedded_resource(
    validator: Validator, on: Any, instance: Any, schema: Schema
) -> Iterator[ValidationError]:
    if on and isinstance(instance, dict):
        for name in ("apiVersion", "kind"):
            if not instance.get(name):
                yield _error(f"missing required field {name!r}: an embedded object must say its {name}")


def _property_names(validator: Any, names: Any, instance: Any, schema: Schema) -> Iterator[ValidationError]:
    if isinstance(instance, dict):
        for name in instance:
            for error in validator.descend(name, names):
                # The key's own field, so that the message points at the line that names it.
                error.path.appendleft(name)
                yield error


def _additional_properties(
    validator: Any, extra: Any, instance: Any, schema: Schema
) -> Iterator[ValidationError]:
    if not isinstance(instance, dict):
        return
    known = schema.get("properties") or {}
    patterns = schema.get("patternProperties") or {}
    for name, value in instance.items():
        if name in known or any(search(p, name) for p in patterns):
            continue
        if extra is False:
            yield _error(f"unknown field {name!r} ({_known(name, list(known))})", (name,))
        elif isinstance(extra, dict):
            yield from validator.descend(value, extra, path=name)


def _known(name: str, known: list[str]) -> str:
    """The fields a misspelt one might have meant: all of them if few, else the nearest."""
    near = difflib.get_close_matches(name, known, n=3, cutoff=0.6) if len(known) > 8 else []
    if near:
        return f"did you mean {' or '.join(map(repr, near))}?"
    return f"known fields: {', '.join(known) or 'none'}"


def _any_of(validator: Validator, options: Any, instance: Any, schema: Schema) -> Iterator[ValidationError]:
    if not any(validator.evolve(schema=option).is_valid(instance) for option in options):
        reasons = "; ".join(f"({i + 1}) {_first(validator, instance, o)}" for i, o in enumerate(options))
        yield _error(f"matches none of the allowed forms (anyOf): {reasons}")


def _one_of(validator: Validator, options: Any, instance: Any, schema: Schema) -> Iterator[ValidationError]:
    matching = [
        i + 1 for i, option in enumerate(options) if validator.evolve(schema=option).is_valid(instance)
    ]
    if not matching:
        reasons = "; ".join(f"({i + 1}) {_first(validator, instance, o)}" for i, o in enumerate(options))
        yield _error(f"matches none of the allowed forms (oneOf): {reasons}")
    elif len(matching) > 1:
        yield _error(f"matches more than one of the allowed forms (oneOf): {', '.join(map(str, matching))}")


def _first(validator: Validator, instance: Any, option: Any) -> str:
    error = jsonschema.exceptions.best_match(validator.evolve(schema=option).iter_errors(instance))
    if error is None:
        return "matches"
    where = ".".join(map(str, error.path))
    return f"{where}: {error.message}" if where else error.message


def _regex(validator: Validator, on: Any, instance: Any, schema: Schema) -> Iterator[ValidationError]:
    if on and isinstance(instance, str):
        try:
            compiled(instance)
        except ValueError as error:
            yield _error(f"{error} (patterns are read with RE2's syntax, as Go reads them)")


_KEYWORDS: dict[str, Keyword] = {
    "type": _type,
    "required": _required,
    "enum": _enum,
    "const": _const,
    "not": _not,
    "minimum": _minimum,
    "maximum": _maximum,
    "multipleOf": _multiple_of,
    "minLength": _bound("minLength", str, "character"),
    "maxLength": _bound("maxLength", str, "character"),
    "minItems": _bound("minItems", list, "item"),
    "maxItems": _bound("maxItems", list, "item"),
    "minProperties": _bound("minProperties", dict, "field"),
    "maxProperties": _bound("maxProperties", dict, "field"),
    "pattern": _pattern,
    "format": _format,
    "uniqueItems": _unique_items,
    "propertyNames": _property_names,
    "additionalProperties": _additional_properties,
    "anyOf": _any_of,
    "oneOf": _one_of,
    "x-kubernetes-int-or-string": _int_or_string,
    "x-kubernetes-list-type": _list_type,
    "x-kubernetes-embedded-resource": _embedded_resource,
    # Stencil's own, for SCHEMA_FORMAT: a pattern a CRD gives must compile with RE2.
    "x-stencil-regex": _regex,
}


def _is_integer(checker: Any, instance: Any) -> bool:
    # 2.0 is an integer in JSON (and to the API server's decoder), True is not.
    if isinstance(instance, bool):
        return False
    return isinstance(instance, int) or (isinstance(instance, float) and instance.is_integer())


OpenApiValidator = jsonschema.validators.extend(  # type: ignore[no-untyped-call]
    jsonschema.Draft4Validator,
    validators=_KEYWORDS,
    type_checker=jsonschema.Draft4Validator.TYPE_CHECKER.redefine("integer", _is_integer),
)
JsonSchemaValidator = jsonschema.validators.extend(  # type: ignore[no-untyped-call]
    jsonschema.Draft202012Validator,
    validators={k: v for k, v in _KEYWORDS.items() if k not in ("minimum", "maximum")},
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


def strict(schema: Schema) -> Schema:
    """``schema`` (a CRD's ``openAPIV3Schema``) with every object the server would prune closed.

    The API server drops fields a structural schema does not name, unless the object
    says ``x-kubernetes-preserve-unknown-fields`` or has ``additionalProperties``; with
    strict field validation it refuses them instead, and so does the copy returned here.
    A resource's own ``apiVersion``, ``kind`` and ``metadata`` (at the root and in
    embedded resources) are always known.
    """
    return _closed(copy.deepcopy(schema), resource=True)


def _closed(schema: Schema, *, resource: bool) -> Schema:
    if resource or schema.get("x-kubernetes-embedded-resource"):
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
        properties["metadata"] = {
            **_OBJECT_META,
            "properties": {**_OBJECT_META["properties"], **narrowed},
        }
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
