"""The CRD a kind writes for itself: a short schema in ``kind.yaml``, made into a CustomResourceDefinition.

A hand-written CRD is 40 to 150 lines of OpenAPI for what a reader says in a line a field.
``schema:`` in ``kind.yaml`` says a field the way kro's SimpleSchema does, a type and
markers after a bar::

    schema:
      spec:
        image: string | required=true description="The container image"
        replicas: integer | default=1 minimum=0 maximum=20
        tier: string | enum=web,worker default=web
        ingress:                      # a nested mapping is an object
          host: string | pattern="^[a-z0-9.-]+$"
        ports:                        # a list of one item is a list of that item
          - port: integer | required=true minimum=1 maximum=65535
        labels: map[string]string     # []T a list, map[string]T a map, object anything
      validations:
        - rule: self.replicas <= 10 || self.tier == 'worker'
          message: a web tier has at most 10 replicas

``crd`` gives the CRD (``apiextensions.k8s.io/v1``, structural, with the status
subresource and the Ready, Reason and Age columns), or a ``KindError`` at the file, line
and field of ``kind.yaml`` that is wrong.  Every default is checked against its own field
here, so a default the API server would refuse never reaches it.  An object whose fields
have defaults and none required defaults to ``{}``, so its fields' defaults always apply.
The status defaults to ``observedGeneration: 0``, so kstatus waits for the engine's first write.
"""

from __future__ import annotations

import copy
import json
import math
import re
from collections.abc import Callable
from typing import Any

from engine.core.model import apis
from engine.core.model.crds import formats, structural
from engine.core.model.documents import Document, FieldPath

Schema = dict[str, Any]

_SCALARS: dict[str, Schema] = {
    "string": {"type": "string"},
    "integer": {"type": "integer"},
    "boolean": {"type": "boolean"},
    "number": {"type": "number"},
    "float": {"type": "number"},
    "object": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
}
_MARKER_NAME = re.compile(r"\s*([A-Za-z]+)=")
_MARKER_VALUE = re.compile(r'"(?:[^"\\]|\\.)*"|\S*')  # a quoted string, or up to the next space
_JSON = json.JSONDecoder()
_NUMBERS = ("integer", "number")
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
    "minLength": (("string",), "count", _set("minLength")),
    "maxLength": (("string",), "count", _set("maxLength")),
    "pattern": (("string",), "text", _set("pattern")),
    "format": (("string", "integer", "number"), "text", _set("format")),
    "minItems": (("array",), "count", _set("minItems")),
    "maxItems": (("array",), "count", _set("maxItems")),
    "uniqueItems": (("array",), "boolean", _unique),
    "minProperties": (("object",), "count", _set("minProperties")),
    "maxProperties": (("object",), "count", _set("maxProperties")),
}

_CONDITIONS: Schema = {
    "type": "array",
    "description": "The parent's conditions: Ready, and the conditions it is computed from.",
    "x-kubernetes-list-type": "map",
    "x-kubernetes-list-map-keys": ["type"],
    "items": {
        "type": "object",
        "required": ["type", "status", "lastTransitionTime", "reason", "message"],
        "properties": {
            "type": {"type": "string", "maxLength": 316},
            "status": {"type": "string", "enum": ["True", "False", "Unknown"]},
            "observedGeneration": {"type": "integer", "format": "int64", "minimum": 0},
            "lastTransitionTime": {"type": "string", "format": "date-time"},
            "reason": {"type": "string", "minLength": 1, "maxLength": 1024},
            "message": {"type": "string", "maxLength": 32768},
        },
    },
}
_READY = '.status.conditions[?(@.type=="Ready")]'
_COLUMNS = [
    {
        "name": "Ready",
        "type": "string",
        "jsonPath": f"{_READY}.status",
        "description": "Ready's status.",
    },
    {
        "name": "Reason",
        "type": "string",
        "jsonPath": f"{_READY}.reason",
        "description": "Ready's reason.",
    },
]
_AGE = {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"}
# Groups the API server keeps for APIs reviewed upstream: a CRD in one needs an annotation.
_RESERVED_GROUP = re.compile(r"(^|\.)(k8s|kubernetes)\.io$")


def crd(document: Document, api_version: str, kind: str) -> dict[str, Any]:
    """The CRD of ``kind`` at ``api_version`` from the ``schema:`` of ``document`` (kind.yaml)."""
    given: dict[str, Any] = document.data["schema"]
    group, version = apis.split_api_version(api_version)
    if not group or _RESERVED_GROUP.search(group):
        why = (
            "the core group has no custom resources"
            if not group
            else f"{group} is reserved for upstream APIs"
        )
        raise document.error(
            f"schema: cannot write a CRD for {api_version} ({why})", ("parent", "apiVersion")
        )
    reader = _Reader(document, given.get("types", {}))
    spec = reader.object(given.get("spec", {}), ("schema", "spec"))
    if given.get("validations"):
        spec["x-kubernetes-validations"] = [*given["validations"], *spec.get("x-kubernetes-validations", [])]
    status = reader.object(given.get("status", {}), ("schema", "status"))
    status["x-kubernetes-preserve-unknown-fields"] = True  # status rules may write more than is declared
    status["properties"] = {
        "observedGeneration": {
            "type": "integer",
            "format": "int64",
            "description": "The generation last seen.",
        },
        "conditions": copy.deepcopy(_CONDITIONS),
        **status.get("properties", {}),
    }
    # A parent the engine has not seen yet reads as generation 0 observed: kstatus (Helm 4's
    # --wait, Flux, kpt) waits for the engine rather than reading it Current at once.
    status["default"] = {"observedGeneration": 0}
    root: Schema = {"type": "object"}
    if "description" in given:
        root["description"] = given["description"]
    root["properties"] = {
        "apiVersion": {"type": "string"},
        "kind": {"type": "string"},
        "metadata": {"type": "object"},
        "spec": spec,
        "status": status,
    }
    if "maxNameLength" in given:
        bound = given["maxNameLength"]
        message = f"a {kind} name is at most {bound} characters: its children are named after it"
        rule = f"self.metadata.name.size() <= {bound}"
        root["x-kubernetes-validations"] = [{"rule": rule, "message": message}]
    if spec.get("required"):
        root["required"] = ["spec"]
    else:
        spec["default"] = {}  # so that an empty CR still gets every default
    plural = given.get("plural", _plural(kind.lower()))
    names: dict[str, Any] = {
        "kind": kind,
        "listKind": f"{kind}List",
        "plural": plural,
        "singular": kind.lower(),
    }
    if "shortNames" in given:
        names["shortNames"] = given["shortNames"]
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{group}"},
        "spec": {
            "group": group,
            "names": names,
            "scope": given.get("scope", "Namespaced"),
            "versions": [
                {
                    "name": version,
                    "served": True,
                    "storage": True,
                    "subresources": {"status": {}},
                    "additionalPrinterColumns": [
                        *_columns(given.get("printerColumns", []), root),
                        *copy.deepcopy([*_COLUMNS, _AGE]),
                    ],
                    "schema": {"openAPIV3Schema": root},
                }
            ],
        },
    }


def _plural(singular: str) -> str:
    if singular.endswith(("s", "x", "z", "ch", "sh")):
        return singular + "es"
    if singular.endswith("y") and singular[-2:-1] not in "aeiou":
        return singular[:-1] + "ies"
    return singular + "s"


def _columns(given: list[dict[str, Any]], root: Schema) -> list[dict[str, Any]]:
    """The printer columns, each of the type of the field its jsonPath names unless it says one:
    an integer field is an integer column, which kubectl aligns and sorts as one."""
    return [{"type": _column_type(root, column["jsonPath"]), **column} for column in given]


_COLUMN_TYPES = {"integer": "integer", "number": "number", "boolean": "boolean"}


def _column_type(root: Schema, json_path: str) -> str:
    """The column type of the field ``json_path`` (``.spec.replicas``) names in ``root``; a path
    through a list, or to no field, is a string column."""
    schema: Schema | None = root
    for step in json_path.lstrip(".").split("."):
        schema = (schema or {}).get("properties", {}).get(step) if step.isidentifier() else None
    if schema is None:
        return "string"
    if schema.get("type") == "string" and schema.get("format") == "date-time":
        return "date"
    return _COLUMN_TYPES.get(str(schema.get("type")), "string")


class _Reader:
    """Reads fields of one ``kind.yaml``'s schema, naming the field of each problem."""

    def __init__(self, document: Document, types: dict[str, Any]) -> None:
        self.document = document
        self.types = types
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
            schema = self.object(self.types[text], ("schema", "types", text))
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
            if types is not None and schema["type"] not in types:
                raise self.error(
                    f"{name} applies to {' and '.join(types)} fields, not {schema['type']}", path
                )
            said[name] = self.value(name, reads, raw, schema, path)
            apply(schema, said[name])
        return said

    def value(self, name: str, reads: str, raw: str, schema: Schema, path: FieldPath) -> Any:
        """The marker ``name``'s value ``raw``, read as ``reads`` says (a ``value`` by the field's type)."""
        text = json.loads(raw) if raw.startswith('"') else raw
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
        kind = str({"boolean": "boolean", "count": "integer"}.get(reads, schema["type"]))
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
