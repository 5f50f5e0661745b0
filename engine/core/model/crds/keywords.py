"""The keywords of the CRD dialect whose meaning differs from plain JSON Schema.

``structural`` gives these to ``jsonschema`` in place of its own, one table (``KEYWORDS``):
``nullable`` and ``x-kubernetes-int-or-string`` widen ``type``; ``pattern`` and ``format``
read strings as Go does (``formats``); list types ``set`` and ``map`` refuse duplicates;
an embedded resource must say its ``apiVersion`` and ``kind``; an unknown field is named
with the fields it might have meant.

Every problem is a ``jsonschema.ValidationError`` whose message is written for a person
and whose ``absolute_path`` is the field it is about (an unknown field's own key, a
duplicate's own index), so a caller holding the YAML nodes can give its line.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable, Iterator, Sized
from typing import Any, cast

import jsonschema
from jsonschema.exceptions import ValidationError
from jsonschema.protocols import Validator

from engine.core.model.crds.formats import INT_RANGES, STRING_FORMATS, compiled, search

Schema = dict[str, Any]
Keyword = Callable[[Validator, Any, Any, Schema], Iterator[ValidationError]]


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
    if validator.is_type(instance, "integer") and fmt in INT_RANGES:
        low, high = INT_RANGES[fmt]
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


KEYWORDS: dict[str, Keyword] = {
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
