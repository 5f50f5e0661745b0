"""A kind is a folder: what it serves, its child templates, its status rules, its examples.

``templates/<name>/kind.yaml`` names the parent ``apiVersion``/``kind`` and holds
placement permissions and status rules; every other ``*.yaml`` (or ``*.yaml.j2``)
file in the folder is a child template; ``examples/`` holds sample CRs.  Loading
is pure apart from reading the folder, and every problem is a ``KindError`` that
names the file, line and field.

``kind.yaml`` is checked against the published JSON Schema
(``engine/schemas/kind.schema.json``) by a small walker over the YAML *nodes*
rather than a JSON Schema library: the schema stays the single statement of the
format, and every complaint can point at the line of the field it is about.
The same strict YAML rules (no duplicate keys, no anchors or aliases, JSON data
only) serve kind.yaml, rendered templates and CR files alike, so they live here
in ``StrictLoader``.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, ClassVar, cast

import yaml
from yaml.composer import ComposerError
from yaml.constructor import ConstructorError, SafeConstructor
from yaml.error import Mark, MarkedYAMLError

from engine.core.errors import KindError, StencilError
from engine.core.expressions import Expression, compile_expression

KIND_FILE = "kind.yaml"
EXAMPLES_DIR = "examples"


@dataclass(frozen=True)
class Template:
    """One child template: its path (for error messages) and its text."""

    path: Path
    text: str

    @property
    def name(self) -> str:
        return self.path.name


@dataclass(frozen=True)
class ConditionRule:
    """A custom condition of the parent, computed from the parent and its children."""

    type: str
    status: Expression
    reason: Expression | None = None
    message: Expression | None = None


@dataclass(frozen=True)
class FieldRule:
    """A status field of the parent: ``status.<name>`` = value of the expression."""

    name: str
    value: Expression


@dataclass(frozen=True)
class Placement:
    """Where children may go beyond the parent's own namespace, and which kinds are allowed."""

    namespaces: tuple[str, ...] = ()  # other namespaces a child may name; "*" means any
    cluster_scoped: bool = False  # cluster-scoped children allowed
    rbac: bool = False  # Role, ClusterRole, RoleBinding, ClusterRoleBinding allowed


@dataclass(frozen=True)
class Kind:
    name: str  # the folder's name
    directory: Path
    api_version: str  # of the parent
    kind: str  # of the parent
    templates: tuple[Template, ...]
    placement: Placement = field(default_factory=Placement)
    conditions: tuple[ConditionRule, ...] = ()
    fields: tuple[FieldRule, ...] = ()
    examples: tuple[Path, ...] = ()
    digest: str = ""  # hash of every file of the folder: changes when the kind changes
    service_account: tuple[str, str] | None = None  # (namespace, name) children are applied as
    observe: tuple[tuple[str, str], ...] = ()  # (apiVersion, kind) of related objects status rules read
    delete_when: Expression | None = None  # the parent is deleted once this is true


@dataclass(frozen=True)
class BrokenKind:
    """A kind folder that failed to load, kept so its objects can be told why.

    ``api_version``/``kind`` are the parent's, when ``kind.yaml`` got far enough
    to say them; the controller then marks that kind's objects with the error.
    """

    name: str
    directory: Path
    error: KindError
    api_version: str | None = None
    kind: str | None = None


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


# -- loading ------------------------------------------------------------------------


def load_kind(directory: Path) -> Kind:
    """Load the kind folder ``directory``, or raise ``KindError`` naming the file, line and field."""
    document = Document.read(directory / KIND_FILE)
    document.validate(_schema())
    data = document.data
    parent = data["parent"]
    placement = data.get("placement", {})
    status = data.get("status", {})
    return Kind(
        name=directory.name,
        directory=directory,
        api_version=parent["apiVersion"],
        kind=parent["kind"],
        templates=_templates(directory, document),
        placement=Placement(
            namespaces=tuple(placement.get("namespaces", ())),
            cluster_scoped=placement.get("clusterScoped", False),
            rbac=placement.get("rbac", False),
        ),
        conditions=_conditions(document, status.get("conditions", [])),
        fields=tuple(
            FieldRule(name, document.expression(value, ("status", "fields", name)))
            for name, value in status.get("fields", {}).items()
        ),
        examples=tuple(sorted(p for p in (directory / EXAMPLES_DIR).glob("*.yaml") if p.is_file())),
        digest=_digest(directory),
        service_account=_service_account(data.get("serviceAccount")),
        observe=tuple((o["apiVersion"], o["kind"]) for o in data.get("observe", ())),
        delete_when=(
            document.expression(data["deleteWhen"], ("deleteWhen",)) if "deleteWhen" in data else None
        ),
    )


def _service_account(value: dict[str, str] | None) -> tuple[str, str] | None:
    return (value["namespace"], value["name"]) if value else None


def load_kinds(root: Path) -> tuple[dict[str, Kind], dict[str, BrokenKind]]:
    """Every kind folder under ``root``: the good ones and the broken ones, by folder name.

    One broken folder never hides the others.  Folders whose names start with
    ``.`` or ``_`` are not kinds.  Two folders serving the same parent are both
    refused: which one should win is not something to guess.
    """
    if not root.is_dir():
        raise KindError("the templates folder does not exist", file=str(root))
    loaded: dict[str, Kind] = {}
    broken: dict[str, BrokenKind] = {}
    for directory in sorted(p for p in root.iterdir() if p.is_dir() and p.name[:1] not in "._"):
        try:
            kind = load_kind(directory)
        except KindError as error:
            broken[directory.name] = BrokenKind(directory.name, directory, error, *_parent_of(directory))
        else:
            loaded[kind.name] = kind
    by_parent: dict[tuple[str, str], list[Kind]] = {}
    for kind in loaded.values():
        by_parent.setdefault((kind.api_version, kind.kind), []).append(kind)
    for (api_version, parent_kind), serving in by_parent.items():
        if len(serving) < 2:
            continue
        names = ", ".join(k.name for k in serving)
        for kind in serving:
            del loaded[kind.name]
            clash = KindError(
                f"{parent_kind} ({api_version}) is served by more than one kind folder: {names}",
                file=str(kind.directory / KIND_FILE),
                field="parent",
            )
            # No parent here: marking the objects broken would be a guess about which folder is wrong.
            broken[kind.name] = BrokenKind(kind.name, kind.directory, clash)
    return loaded, broken


def _parent_of(directory: Path) -> tuple[str | None, str | None]:
    """The parent's apiVersion and kind from a ``kind.yaml`` that failed to load, if it says them."""
    try:
        document = Document.read(directory / KIND_FILE)
        parent_schema = _schema()["properties"]["parent"]
        parent = document.data["parent"]
        document.validate(parent_schema, ("parent",))
    except (KindError, KeyError, TypeError):
        return None, None
    return parent["apiVersion"], parent["kind"]


def _templates(directory: Path, document: Document) -> tuple[Template, ...]:
    names = document.data.get("templates")
    if names is None:
        paths = sorted(
            p
            for p in directory.iterdir()
            if p.is_file() and p.name != KIND_FILE and p.name.endswith((".yaml", ".yaml.j2"))
        )
    else:
        paths = []
        for index, name in enumerate(names):
            path = directory / name
            if not path.is_file():
                raise document.error(f"no template file {name!r} in {directory}", ("templates", index))
            paths.append(path)
    templates = []
    for path in paths:
        try:
            templates.append(Template(path, path.read_text(encoding="utf-8")))
        except UnicodeDecodeError as error:
            raise KindError(f"not UTF-8 text: {error}", file=str(path)) from error
    return tuple(templates)


def _conditions(document: Document, rules: list[dict[str, str]]) -> tuple[ConditionRule, ...]:
    seen: set[str] = set()
    conditions = []
    for index, rule in enumerate(rules):
        where = ("status", "conditions", index)
        if rule["type"] in seen:
            raise document.error(f"condition {rule['type']} is declared twice", (*where, "type"))
        seen.add(rule["type"])
        optional = {
            key: document.expression(rule[key], (*where, key)) for key in ("reason", "message") if key in rule
        }
        conditions.append(
            ConditionRule(rule["type"], document.expression(rule["status"], (*where, "status")), **optional)
        )
    return tuple(conditions)


def _digest(directory: Path) -> str:
    """sha256 over every file of the folder, by relative path and content."""
    digest = hashlib.sha256()
    for path in sorted(p for p in directory.rglob("*") if p.is_file()):
        relative = path.relative_to(directory).as_posix().encode()
        content = path.read_bytes()
        digest.update(b"%d:%s%d:" % (len(relative), relative, len(content)))
        digest.update(content)
    return digest.hexdigest()


@functools.cache
def _schema() -> dict[str, Any]:
    text = resources.files("engine").joinpath("schemas", "kind.schema.json").read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


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
