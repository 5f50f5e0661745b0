"""The fields of a kind.yaml ``schema:``: each field's text, a type and markers, read into its OpenAPI schema.

A field says in a line what a CRD says in several, the way kro's SimpleSchema does::

    replicas: integer | default=1 minimum=0 maximum=20

``Reader`` reads the fields of one kind.yaml (``spec:``, ``status:`` and the object types
of ``types:``), naming the file, line and field of each mistake, and checks every default
against its own field, so a default the API server would refuse never reaches it.
``field_at`` finds a field by its path, for a CEL rule that goes on it.  The CRD around the
fields (names, status, printer columns) is ``simpleschema``'s.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from typing import Any

from engine.core.model.crds import formats, structural
from engine.core.model.language.documents import Document, FieldPath

Schema = dict[str, Any]

INT_OR_STRING = "intOrString"
_SCALARS: dict[str, Schema] = {
    "string": {"type": "string"},
    "integer": {"type": "integer"},
    "boolean": {"type": "boolean"},
    "number": {"type": "number"},
    "float": {"type": "number"},
    "object": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
    # An integer or a string (a port number or name, say): a CRD's one field of two types.
    INT_OR_STRING: {"x-kubernetes-int-or-string": True},
}
_MARKER_NAME = re.compile(r"\s*([A-Za-z]+)=")
_MARKER_VALUE = re.compile(r'"(?:[^"\\]|\\.)*"|\S*')  # a quoted string, or up to the next space
_JSON = json.JSONDecoder()
# An int-or-string field takes the markers of both: the API server checks a number's bounds on
# its numbers and a string's on its strings.
_NUMBERS = ("integer", "number", INT_OR_STRING)
_STRINGS = ("string", INT_OR_STRING)
_WHOLE_NUMBER = re.compile(r"-?[0-9]+")
# The formats a field of each type may name: the ones the API server checks and Stencil checks
# offline as it does, and password (which marks a field and checks nothing).
FORMATS: dict[str, tuple[str, ...]] = {
    "string": (*formats.STRING_FORMATS, "password"),
    "integer": tuple(formats.INT_RANGES),
    "number": (*formats.INT_RANGES, "float", "double"),
}

# The markers, each with the types it applies to (None: any) and what it adds to a field's schema.
_Apply = Callable[[Schema, Any], None]


def _set(key: str) -> _Apply:
    def apply(schema: Schema, value: Any) -> None:
        schema[key] = value

    return apply


def _immutable(schema: Schema, value: Any) -> None:
    if value:
        schema.setdefault("x-kubernetes-validations", []).append(
            {"rule": "self == oldSelf", "message": "is immutable"}
        )


# A transition rule runs only where the field is there before and after: removing a field and
# setting it again would pass ``self == oldSelf`` both times. So each object that holds an
# immutable field, or an object on the way to one, keeps it once it is set (set once, then fixed).
_CEL_KEYWORDS = frozenset(
    "true false null in as break const continue else for function if import let loop package "  # noqa: SIM905
    "namespace return var void while".split()
)


def _cel_name(name: str) -> str:
    """A property's name (an identifier, as the kind schema takes it) as a CEL rule reads it,
    escaped as the API server escapes it."""
    return f"__{name}__" if name in _CEL_KEYWORDS else name.replace("__", "__underscores__")


def _kept_once_set(schema: Schema, fields: dict[str, str]) -> None:
    """Rules on ``schema`` that keep each of ``fields`` once set, saying why (the field ``is
    immutable`` or ``holds an immutable field``)."""
    for name, why in fields.items():
        field = _cel_name(name)
        schema.setdefault("x-kubernetes-validations", []).append(
            {
                "rule": f"!has(oldSelf.{field}) || has(self.{field})",
                "message": f"{name} {why}: once set it cannot be removed",
            }
        )


def _unique(schema: Schema, value: Any) -> None:
    if value:
        schema["x-kubernetes-list-type"] = "set"


def type_of(schema: Schema) -> str:
    """The type a field's schema is of, as markers name it (``intOrString`` for one of two types)."""
    return str(schema.get("type", INT_OR_STRING))


def _marker_at(text: str, position: int) -> tuple[str, str, int] | None:
    """The marker ``name=value`` at ``position``: its name, its value's text, and where it ends.
    A value that opens a JSON object or list runs to where that JSON closes, spaces and all
    (``default={"k8s-app": "kube-dns"}``); any other, to the next space unless quoted."""
    named = _MARKER_NAME.match(text, position)
    if named is None:
        return None
    start = end = named.end()
    if text[start : start + 1] in ("{", "["):
        try:
            end = _JSON.raw_decode(text, start)[1]
        except json.JSONDecodeError:
            end = start  # not JSON: read as a word, and refused as the field's type says
    if end == start:
        value = _MARKER_VALUE.match(text, start)
        end = value.end() if value is not None else start
    return named.group(1), text[start:end], end


_MARKERS: dict[str, tuple[tuple[str, ...] | None, str, _Apply]] = {
    # name: (types it applies to, how its value reads, what it does)
    "required": (None, "boolean", lambda schema, value: None),  # said on the parent object
    "description": (None, "text", _set("description")),
    "default": (None, "value", _set("default")),
    "enum": (("string", "integer", "number"), "list", _set("enum")),
    "immutable": (None, "boolean", _immutable),
    "minimum": (_NUMBERS, "number", _set("minimum")),
    "maximum": (_NUMBERS, "number", _set("maximum")),
    "minLength": (_STRINGS, "count", _set("minLength")),
    "maxLength": (_STRINGS, "count", _set("maxLength")),
    "pattern": (_STRINGS, "text", _set("pattern")),
    "format": (("string", "integer", "number"), "text", _set("format")),
    "minItems": (("array",), "count", _set("minItems")),
    "maxItems": (("array",), "count", _set("maxItems")),
    "uniqueItems": (("array",), "boolean", _unique),
    "minProperties": (("object",), "count", _set("minProperties")),
    "maxProperties": (("object",), "count", _set("maxProperties")),
}


class Reader:
    """Reads fields of one ``kind.yaml``'s schema, naming the field of each problem."""

    def __init__(
        self, document: Document, types: dict[str, Any], types_path: FieldPath = ("schema", "types")
    ) -> None:
        self.document = document
        self.types = types
        self.types_path = types_path
        self.reading: list[str] = []  # custom types being read, to refuse one that contains itself
        self.fixed: dict[int, str] = {}  # the schemas (by id) that are or hold an immutable field

    def object(self, fields: dict[str, Any], path: FieldPath) -> Schema:
        """An object of ``fields``: their schemas, which are required, and ``default: {}`` if that helps."""
        properties: dict[str, Schema] = {}
        required: list[str] = []
        for name, value in fields.items():
            field_schema, is_required = self.field(value, (*path, name))
            properties[name] = field_schema
            if is_required:
                required.append(name)
        schema: Schema = {"type": "object", "properties": properties}
        held = {name: self.fixed[id(sub)] for name, sub in properties.items() if id(sub) in self.fixed}
        _kept_once_set(schema, {name: why for name, why in held.items() if name not in required})
        if held:
            self.fixed[id(schema)] = "holds an immutable field"
        if required:
            schema["required"] = required
        elif any("default" in sub for sub in properties.values()):
            schema["default"] = {}
        return schema

    def field(self, value: Any, path: FieldPath) -> tuple[Schema, bool]:
        """One field's schema and whether it is required."""
        if isinstance(value, dict):
            return self.object(value, path), False
        if isinstance(value, list):
            items, _ = self.field(value[0], (*path, 0))
            return {"type": "array", "items": items}, False
        type_text, _, marker_text = str(value).partition("|")
        schema = self.type(type_text.strip(), path)
        markers = self.markers(marker_text, schema, path)
        if markers.get("immutable"):
            self.fixed[id(schema)] = "is immutable"
        if "default" in schema:
            found = structural.problems(schema, schema["default"])
            if found:
                raise self.error(
                    f"the default {json.dumps(schema['default'])} is refused: {found[0].message}", path
                )
        return schema, bool(markers.get("required"))

    def type(self, text: str, path: FieldPath) -> Schema:
        if text in _SCALARS:
            return dict(_SCALARS[text])
        if text.startswith("[]"):
            return {"type": "array", "items": self.type(text[2:], path)}
        if text.startswith("map[string]"):
            return {"type": "object", "additionalProperties": self.type(text[len("map[string]") :], path)}
        if text in self.types:
            if text in self.reading:
                raise self.error(f"the type {text} contains itself: a CRD's schema cannot", path)
            self.reading.append(text)
            schema = self.object(self.types[text], (*self.types_path, text))
            self.reading.pop()
            return schema
        known = ", ".join([*_SCALARS, *self.types])
        raise self.error(f"unknown type {text!r}: use {known}, []TYPE or map[string]TYPE", path)

    def markers(self, text: str, schema: Schema, path: FieldPath) -> dict[str, Any]:
        """Apply the markers ``key=value ...`` of ``text`` to ``schema``; what they said, by name."""
        said: dict[str, Any] = {}
        position = 0
        while text[position:].strip():
            found = _marker_at(text, position)
            if found is None:
                word = text[position:].split()[0]
                raise self.error(f"{word!r} is not a marker: write name=value (e.g. required=true)", path)
            name, raw, position = found
            if name not in _MARKERS:
                raise self.error(f"unknown marker {name!r}: use {', '.join(_MARKERS)}", path)
            if name in said:
                raise self.error(f"the marker {name} is given twice", path)
            types, reads, apply = _MARKERS[name]
            if types is not None and type_of(schema) not in types:
                listed = " and ".join(types) if len(types) < 3 else f"{', '.join(types[:-1])} and {types[-1]}"
                raise self.error(f"{name} applies to {listed} fields, not {type_of(schema)}", path)
            said[name] = self.value(name, reads, raw, schema, path)
            apply(schema, said[name])
        return said

    def value(self, name: str, reads: str, raw: str, schema: Schema, path: FieldPath) -> Any:
        """The marker ``name``'s value ``raw``, read as ``reads`` says (a ``value`` by the field's type)."""
        quoted = raw.startswith('"')
        text = json.loads(raw) if quoted else raw
        if reads == "text":
            if name == "pattern":
                try:
                    formats.compiled(text)
                except ValueError as error:
                    raise self.error(f"pattern: {error}", path) from None
            if name == "format" and text not in FORMATS[schema["type"]]:
                known = ", ".join(FORMATS[schema["type"]])
                raise self.error(
                    f"format: {text!r} is not a format of {schema['type']} fields: use {known}", path
                )
            return text
        if reads == "list":
            return [self.scalar(name, item.strip(), schema["type"], path) for item in text.split(",")]
        kind = {"boolean": "boolean", "count": "integer"}.get(reads, type_of(schema))
        if kind == INT_OR_STRING:  # a bound is a number; a value a whole number unless quoted, else text
            whole = not quoted and _WHOLE_NUMBER.fullmatch(raw)
            kind = "number" if reads == "number" else "integer" if whole else "string"
        if kind == "string":
            return text
        if kind in ("object", "array"):
            try:
                return json.loads(text)
            except json.JSONDecodeError:
                raise self.error(f"{name}: {text!r} is not JSON, as a {kind} is written", path) from None
        value = self.scalar(name, text, kind, path)
        if reads == "count" and value < 0:
            raise self.error(f"{name}: {value} is negative", path)
        return value

    def scalar(self, name: str, text: str, kind: str, path: FieldPath) -> Any:
        readers: dict[str, Callable[[str], Any]] = {
            "string": str,
            "integer": int,
            "number": float,
            "boolean": {"true": True, "false": False}.__getitem__,
        }
        try:
            value = readers[kind](text)
        except (ValueError, KeyError):
            raise self.error(f"{name}: {text!r} is not a valid {kind}", path) from None
        if kind == "number" and not math.isfinite(value):
            raise self.error(f"{name}: {text!r} is not a finite number", path)
        return int(value) if kind == "number" and float(value).is_integer() else value

    def error(self, message: str, path: FieldPath) -> Exception:
        return self.document.error(message, path)


def field_at(spec: Schema, path: str) -> Schema:
    """The schema of the field of ``spec`` that ``path`` names (``frontend.replicas``), stepping
    through a list to its items as ``kubectl explain`` does; ``LookupError`` says why there is none."""
    here, walked = spec, "spec"
    for step in path.split("."):
        while here.get("type") == "array":
            here = here["items"]
        if "additionalProperties" in here:
            raise LookupError(f"{walked} is a map: its values have no field names to step through")
        if step not in here.get("properties", {}):
            raise LookupError(f"{walked} has no field {step!r}")
        here, walked = here["properties"][step], f"{walked}.{step}"
    return here
