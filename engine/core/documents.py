"""Strict YAML documents: loaded without surprises, checked field by field with their lines.

One set of YAML rules serves ``kind.yaml``, rendered templates, CR files and CRDs:
no duplicate keys, no anchors or aliases, JSON data only (``StrictLoader``),
so a document means what it says to every reader.  ``Document`` keeps the YAML
*nodes* next to the data, so a check of a field (against a JSON Schema, by a small
walker rather than a JSON Schema library) can name the file, line and field it is
about.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, cast

import yaml
from yaml.composer import ComposerError
from yaml.constructor import ConstructorError, SafeConstructor
from yaml.error import Mark, MarkedYAMLError

from engine.core.errors import KindError, StencilError
from engine.core.expressions import Expression, compile_expression

# -- strict YAML -------------------------------------------------------------------

_TAG = "tag:yaml.org,2002:"
# YAML 1.1 extras that the API server's YAML reader does not share (a bare date
# would become a datetime here and a string there) are left out, and so is every
# tag that builds something other than JSON data (!!binary, !!set, !!omap...).
_IMPLICIT = frozenset(_TAG + t for t in ("null", "bool", "int", "float", "merge"))
_CONSTRUCTED = tuple(_TAG + t for t in ("null", "bool", "int", "float", "str", "seq", "map"))


class StrictLoader(yaml.CSafeLoader):
    """libyaml's safe loader, narrowed to JSON data: no duplicate keys, no merge keys, no odd tags.

    Aliases and anchors cannot be seen once libyaml has composed the document,
    so ``check_no_anchors`` finds them in the event stream first.
    """

    yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag in _IMPLICIT]
        for first, resolvers in yaml.CSafeLoader.yaml_implicit_resolvers.items()
    }
    yaml_constructors: ClassVar[dict[Any, Any]] = {
        **{tag: yaml.CSafeLoader.yaml_constructors[tag] for tag in _CONSTRUCTED},
        None: SafeConstructor.construct_undefined,
    }

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        mapping: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            if key_node.tag == _TAG + "merge":
                raise ConstructorError(None, None, "merge keys (<<) are not allowed", key_node.start_mark)
            key = self.construct_object(key_node, deep=deep)
            if isinstance(key, list | dict):
                raise ConstructorError(None, None, "a mapping key must be a scalar", key_node.start_mark)
            if key in mapping:
                raise ConstructorError(None, None, f"duplicate key {key!r}", key_node.start_mark)
            mapping[key] = self.construct_object(value_node, deep=deep)
        return mapping


def check_no_anchors(text: str) -> None:
    """Raise a ``yaml.MarkedYAMLError`` at the first anchor or alias in ``text``.

    Aliases let one part of a document stand for another, which makes what a
    file says depend on more than what is written where; YAML files here are
    read as plain trees, so both are refused (as are syntax errors, found on the way).
    """
    for event in yaml.parse(text, Loader=StrictLoader):
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
            mark = cast(Mark, event.start_mark)
            raise ComposerError(None, None, "anchors and aliases (&name, *name) are not allowed", mark)


def yaml_problem(error: yaml.YAMLError) -> tuple[int | None, str]:
    """The 1-based line and a one-line description of a YAML error."""
    if isinstance(error, MarkedYAMLError):
        mark = error.problem_mark or error.context_mark
        problem = error.problem or "invalid YAML"
        if error.context and error.problem_mark is not None:
            problem = f"{error.context}: {problem}"
        return (mark.line + 1 if mark is not None else None), problem
    return None, str(error)


# -- YAML documents, node by node ----------------------------------------------------

FieldPath = tuple[str | int, ...]


def _field(path: FieldPath) -> str:
    """``("status", "conditions", 0, "type")`` -> ``status.conditions[0].type``."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text


def _kind_of(value: Any) -> str:
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


_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "boolean": (bool,),
    "integer": (int,),
    "number": (int, float),
}
_TYPE_NAMES = {
    "object": "a mapping",
    "array": "a list",
    "string": "a string",
    "boolean": "true or false",
    "integer": "an integer",
    "number": "a number",
}


@dataclass(frozen=True)
class Document:
    """One YAML document as data, with its nodes kept so every field can be reported with its line.

    Serves ``kind.yaml`` and CR files alike.  ``validate`` checks the data
    against the subset of JSON Schema / OpenAPI that kind.schema.json and CRD
    schemas use (type, const, enum, not, pattern, min/max length and value,
    required, properties, additionalProperties, items, uniqueItems,
    propertyNames, nullable, x-kubernetes-int-or-string and
    x-kubernetes-preserve-unknown-fields); CEL rules are the API server's.
    """

    file: Path
    node: yaml.Node
    data: Any
    error_type: type[StencilError] = KindError

    @classmethod
    def read(cls, file: Path, error_type: type[StencilError] = KindError) -> Document:
        """The single document of ``file``."""
        documents = cls.read_all(file, error_type)
        if len(documents) != 1:
            problem = "the file is empty" if not documents else "the file holds more than one document"
            raise error_type(problem, file=str(file))
        return documents[0]

    @classmethod
    def read_all(cls, file: Path, error_type: type[StencilError] = KindError) -> list[Document]:
        """Every non-empty document of ``file``, read with ``StrictLoader``."""
        try:
            text = file.read_text(encoding="utf-8")
        except FileNotFoundError as error:
            raise error_type("no such file", file=str(file)) from error
        except (OSError, UnicodeDecodeError) as error:
            raise error_type(f"cannot read: {error}", file=str(file)) from error
        documents = []
        try:
            check_no_anchors(text)
            loader = StrictLoader(text)
            try:
                while loader.check_node():
                    node = loader.get_node()
                    if node is None:
                        break
                    data = loader.construct_document(node)
                    if data is not None:
                        documents.append(cls(file, node, data, error_type))
            finally:
                loader.dispose()
        except yaml.YAMLError as error:
            line, problem = yaml_problem(error)
            raise error_type(problem, file=str(file), line=line) from error
        return documents

    @property
    def line(self) -> int:
        return self.node.start_mark.line + 1

    def error(self, message: str, path: FieldPath) -> StencilError:
        """An error at the line of the field ``path`` (or of the nearest field that exists)."""
        field = _field(path) or None
        return self.error_type(message, file=str(self.file), line=self.line_of(path), field=field)

    def expression(self, text: str, path: FieldPath) -> Expression:
        return compile_expression(text, file=str(self.file), line=self.line_of(path), field=_field(path))

    def line_of(self, path: FieldPath) -> int:
        """The line where the field ``path`` is named (its key), or of the nearest field that exists."""
        node, mark = self.node, self.node.start_mark
        for part in path:
            if isinstance(node, yaml.MappingNode):
                found = [(k, v) for k, v in node.value if k.value == part]
                if not found:
                    break
                mark, node = found[0][0].start_mark, found[0][1]
            elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
                node = node.value[part]
                mark = node.start_mark
            else:
                break
        return int(mark.line) + 1

    def validate(
        self, schema: dict[str, Any], path: FieldPath = (), *, data: Any = None, closed: bool = False
    ) -> None:
        """Check the data at ``path`` (or ``data``, if given) against ``schema``.

        ``closed`` treats an object schema with ``properties`` and nothing else
        allowed as closed, the way ``kubectl`` strict field validation reads a CRD.
        """
        value: Any = data
        if data is None:
            value = self.data
            for part in path:
                value = value[part]
        _Checker(self, closed).check(value, schema, path)


@dataclass(frozen=True)
class _Checker:
    document: Document
    closed: bool

    def check(self, value: Any, schema: dict[str, Any], path: FieldPath) -> None:
        def fail(message: str) -> StencilError:
            return self.document.error(message, path)

        if value is None and schema.get("nullable"):
            return
        if "const" in schema and value != schema["const"]:
            raise fail(f"must be {schema['const']!r}, not {value!r}")
        expected = schema.get("type")
        if (
            expected is not None
            and not schema.get("x-kubernetes-int-or-string")
            and (
                not isinstance(value, _TYPES[expected]) or (expected != "boolean" and isinstance(value, bool))
            )
        ):
            raise fail(f"must be {_TYPE_NAMES[expected]}, not {_kind_of(value)}")
        if "not" in schema:
            try:
                self.check(value, schema["not"], path)
            except StencilError:
                pass
            else:
                raise fail(f"{value!r} is reserved for the engine's own use")
        if "enum" in schema and value not in schema["enum"]:
            raise fail(f"must be one of {', '.join(map(repr, schema['enum']))}, not {value!r}")
        if isinstance(value, str):
            self._string(value, schema, fail)
        elif isinstance(value, int | float) and not isinstance(value, bool):
            if "minimum" in schema and value < schema["minimum"]:
                raise fail(f"must be at least {schema['minimum']}, not {value}")
            if "maximum" in schema and value > schema["maximum"]:
                raise fail(f"must be at most {schema['maximum']}, not {value}")
        elif isinstance(value, list):
            self._list(value, schema, path)
        elif isinstance(value, dict):
            self._mapping(value, schema, path)

    @staticmethod
    def _string(value: str, schema: dict[str, Any], fail: Callable[[str], StencilError]) -> None:
        if len(value) < schema.get("minLength", 0):
            raise fail(
                "must not be empty"
                if schema["minLength"] == 1
                else f"must be at least {schema['minLength']} characters long"
            )
        if len(value) > schema.get("maxLength", len(value)):
            raise fail(f"must be at most {schema['maxLength']} characters long")
        pattern = schema.get("pattern")
        if pattern is not None and not re.search(pattern, value):
            hint = schema.get("description") or f"expected to match {pattern}"
            raise fail(f"{value!r} is not valid: {hint}")

    def _list(self, value: list[Any], schema: dict[str, Any], path: FieldPath) -> None:
        for index, item in enumerate(value):
            if schema.get("uniqueItems") and item in value[:index]:
                raise self.document.error(f"{item!r} is listed twice", (*path, index))
            if "items" in schema:
                self.check(item, schema["items"], (*path, index))

    def _mapping(self, value: dict[str, Any], schema: dict[str, Any], path: FieldPath) -> None:
        for key in schema.get("required", ()):
            if key not in value:
                raise self.document.error(f"missing required field {key!r}", path)
        properties: dict[str, Any] = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        if (
            self.closed
            and properties
            and "additionalProperties" not in schema
            and not schema.get("x-kubernetes-preserve-unknown-fields")
        ):
            extra = False
        for key, item in value.items():
            where = (*path, key)
            if not isinstance(key, str):
                raise self.document.error(f"field names must be strings, not {_kind_of(key)}", where)
            if "propertyNames" in schema:
                self.check(key, schema["propertyNames"], where)
            if key in properties:
                self.check(item, properties[key], where)
            elif extra is False:
                known = ", ".join(properties)
                raise self.document.error(f"unknown field {key!r} (known fields: {known})", where)
            elif isinstance(extra, dict):
                self.check(item, extra, where)


def load_all(file: Path, error_type: type[StencilError] = StencilError) -> list[dict[str, Any]]:
    """The mapping documents of a YAML file, read strictly (``Document.read_all``); others dropped."""
    return [doc.data for doc in Document.read_all(file, error_type) if isinstance(doc.data, dict)]
