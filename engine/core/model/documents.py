"""Strict YAML documents: loaded without surprises, checked against a schema with their lines.

One set of YAML rules serves ``kind.yaml``, rendered templates, CR files and CRDs:
no duplicate keys, no anchors or aliases, JSON data only (``StrictLoader``),
so a document means what it says to every reader.  ``Document`` keeps the YAML
*nodes* next to the data, so a problem found in the data (by ``jsonschema``, with the
keywords of ``engine.core.model.structural``) can name the file, line and field it is about.

Hostile input is refused here, before it costs anything, with the line it is on:

* a file is read only if it is a regular file of at most ``MAX_FILE_BYTES``
  (``read_text``): a device never ends and a pipe may never start;
* a text is scanned before it is composed (``check_shape``): nesting beyond
  ``MAX_DEPTH`` stops the scan at the level that crosses it, since libyaml's
  time grows with the square of flow nesting and every later walk of the data
  (composing, constructing, schema checks, rendering) recurses once per level;
* a scalar becomes JSON data or an error at its line: integers within int64,
  floats finite, mapping keys strings (``1`` and ``true`` become ``"1"`` and
  ``"true"``, as kubectl's YAML reader makes them; a null or fractional key is refused).

Every limit, with its reason, is listed in docs/limits.md.
"""

from __future__ import annotations

import math
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, cast

import jsonschema
import yaml
from yaml.composer import ComposerError
from yaml.constructor import ConstructorError, SafeConstructor
from yaml.error import Mark, MarkedYAMLError
from yaml.reader import Reader

from engine.core.model import structural
from engine.core.model.errors import KindError, StencilError
from engine.core.model.expressions import CONTEXT_NAMES, Expression, compile_expression

# -- limits ----------------------------------------------------------------------------

# The deepest nesting of mappings and sequences a document may have.  The API
# server allows 10,000 levels of JSON, but Python walks nested data by recursion
# (a few frames a level, of the 1,000 it allows), and no manifest comes near:
# a CRD's schema, the deepest there is, nests some 30 levels.
MAX_DEPTH = 100
# The largest file read as YAML: the API server takes request bodies of up to 3 MiB,
# so no object it could be sent is larger.  Parsing costs some microseconds a
# node, so the densest file of this size (a list of 1.5 million numbers) takes
# seconds and some hundreds of megabytes, not minutes or gigabytes.
MAX_FILE_BYTES = 3 * 1024 * 1024
# The integers JSON carries into the API server exactly: it decodes a number as
# int64 when it can, and silently as an inexact float64 when it cannot.
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
# Characters in an integer's YAML form beyond which it cannot be within int64 (0b and
# 64 binary digits, with room for a sign and underscores): refused without converting,
# since converting a long one is what Python limits (4,300 digits) and takes time for.
_INT_MAX_CHARS = 100


def read_text(file: Path, error_type: type[StencilError] = KindError) -> str:
    """The UTF-8 text of ``file``, which must be a regular file of at most ``MAX_FILE_BYTES``.

    Opened without blocking and checked on the open descriptor, so a pipe put
    where a file was is refused rather than waited on.
    """
    try:
        descriptor = os.open(file, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError as error:
        raise error_type("no such file", file=str(file)) from error
    except OSError as error:
        raise error_type(f"cannot read: {error.strerror}", file=str(file)) from error
    with os.fdopen(descriptor, "rb") as stream:
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):
            what = "a folder" if stat.S_ISDIR(mode) else "a device, pipe or socket"
            raise error_type(f"not a regular file ({what}): only files are read", file=str(file))
        data = stream.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise error_type(
            f"larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB: too large to read", file=str(file)
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise error_type(f"not UTF-8 (byte {error.start})", file=str(file), line=line) from error


# -- strict YAML -------------------------------------------------------------------

_TAG = "tag:yaml.org,2002:"
# YAML 1.1 extras that the API server's YAML reader does not share (a bare date
# would become a datetime here and a string there) are left out, and so is every
# tag that builds something other than JSON data (!!binary, !!set, !!omap...).
_IMPLICIT = frozenset(_TAG + t for t in ("null", "bool", "int", "float", "merge"))
_CONSTRUCTED = tuple(_TAG + t for t in ("null", "bool", "int", "float", "str", "seq", "map"))
# A nesting level needs at least one of these characters, so a text with fewer cannot be too deep.
_NESTING_MARKS = "[{-?:"
_COLLECTION_STARTS = (yaml.MappingStartEvent, yaml.SequenceStartEvent)
_COLLECTION_ENDS = (yaml.MappingEndEvent, yaml.SequenceEndEvent)

_Constructor = Callable[[Any, yaml.Node], Any]


def _marked(constructor: _Constructor) -> _Constructor:
    """``constructor``, whose failure on a malformed scalar (``!!float abc``) is a YAML error at its line."""

    def construct(loader: Any, node: yaml.Node) -> Any:
        try:
            return constructor(loader, node)
        except (ValueError, TypeError, LookupError, ArithmeticError) as error:
            raise ConstructorError(
                None, None, f"{node.value!r} is not a valid {node.tag.removeprefix(_TAG)}", node.start_mark
            ) from error

    return construct


def _construct_int(loader: Any, node: Any) -> int:
    if len(node.value) > _INT_MAX_CHARS:
        raise ConstructorError(
            None, None, f"an integer of {len(node.value)} characters is beyond int64", node.start_mark
        )
    value = int(SafeConstructor.construct_yaml_int(loader, node))
    if not INT64_MIN <= value <= INT64_MAX:
        raise ConstructorError(
            None,
            None,
            f"{node.value} is beyond int64, the range the API server keeps integers exactly in",
            node.start_mark,
        )
    return value


def _construct_float(loader: Any, node: Any) -> float:
    value = float(SafeConstructor.construct_yaml_float(loader, node))
    if not math.isfinite(value):
        raise ConstructorError(
            None, None, f"{node.value} is not a number JSON can hold (no NaN or infinity)", node.start_mark
        )
    return value


_CONSTRUCTORS: dict[Any, _Constructor] = {
    **{tag: yaml.CSafeLoader.yaml_constructors[tag] for tag in _CONSTRUCTED},
    _TAG + "int": _construct_int,
    _TAG + "float": _construct_float,
}


class StrictLoader(yaml.CSafeLoader):
    """libyaml's safe loader, narrowed to JSON data: no duplicate keys, no merge keys, no odd tags.

    A text is checked by ``check_shape`` when the loader is made, before libyaml
    composes it: aliases and anchors cannot be seen once it has, and nesting
    beyond ``MAX_DEPTH`` must be stopped before it does.
    """

    yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag in _IMPLICIT]
        for first, resolvers in yaml.CSafeLoader.yaml_implicit_resolvers.items()
    }
    yaml_constructors: ClassVar[dict[Any, Any]] = {
        **{tag: _marked(constructor) for tag, constructor in _CONSTRUCTORS.items()},
        None: SafeConstructor.construct_undefined,
    }

    def __init__(self, stream: str) -> None:
        check_shape(stream)
        super().__init__(stream)

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        if not isinstance(node, yaml.MappingNode):  # !!map on a scalar or a sequence
            raise ConstructorError(None, None, f"{node.tag} needs a mapping", node.start_mark)
        mapping: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            if key_node.tag == _TAG + "merge":
                raise ConstructorError(None, None, "merge keys (<<) are not allowed", key_node.start_mark)
            key = _json_key(self.construct_object(key_node, deep=deep), key_node)
            if key in mapping:
                raise ConstructorError(None, None, f"duplicate key {key!r}", key_node.start_mark)
            mapping[key] = self.construct_object(value_node, deep=deep)
        return mapping


def _json_key(key: Any, node: yaml.Node) -> Any:
    """``key`` as JSON has it: the string kubectl's YAML reader (sigs.k8s.io/yaml) makes of a
    boolean or an integer; a null, a fraction or a collection is refused."""
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, int):
        return str(key)
    if key is None or isinstance(key, float | list | dict):
        what = {type(None): "null", float: "number with a fraction"}.get(type(key), "collection")
        raise ConstructorError(
            None, None, f"a mapping key must be a string, not a {what} (quote it)", node.start_mark
        )
    return key  # a string, or what a loader built on this one makes of a string


def check_shape(text: str) -> None:
    """Raise a ``yaml.MarkedYAMLError`` at the first character YAML refuses, anchor or alias, or
    collection nested deeper than ``MAX_DEPTH`` in ``text``.

    Aliases let one part of a document stand for another, which makes what a
    file says depend on more than what is written where; YAML files here are
    read as plain trees, so both are refused (as are syntax errors, found on the way).
    The events are read one at a time and the scan stops at the first problem,
    so a text nested a million levels deep costs what its first ``MAX_DEPTH`` levels cost.
    """
    unprintable = Reader.NON_PRINTABLE.search(text)
    if unprintable is not None:
        at = unprintable.start()
        line = text.count("\n", 0, at)
        mark = Mark("<text>", at, line, at - (text.rfind("\n", 0, at) + 1), None, 0)
        character = f"U+{ord(unprintable.group()):04X}"
        raise ComposerError(None, None, f"the control character {character} is not allowed in YAML", mark)
    if "&" not in text and "*" not in text and sum(map(text.count, _NESTING_MARKS)) <= MAX_DEPTH:
        return  # no anchor, no alias, and too few marks to nest too deeply
    depth = 0
    for event in yaml.parse(text, Loader=yaml.CSafeLoader):
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
            mark = cast(Mark, event.start_mark)
            raise ComposerError(None, None, "anchors and aliases (&name, *name) are not allowed", mark)
        if isinstance(event, _COLLECTION_STARTS):
            depth += 1
            if depth > MAX_DEPTH:
                mark = cast(Mark, event.start_mark)
                raise ComposerError(None, None, f"nested more than {MAX_DEPTH} levels deep", mark)
        elif isinstance(event, _COLLECTION_ENDS):
            depth -= 1


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


def _path_to(node: yaml.Node, index: int) -> FieldPath | None:
    """The field path of the value that starts at character ``index`` of ``node``'s text, or ``None``
    if a key starts there (a refused key's message names the key itself).

    Used only once something there was refused, to name its field; the nesting is
    bounded by ``MAX_DEPTH``, so the walk's recursion is too.
    """
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if key.start_mark.index == index:
                return None
            if value.start_mark.index <= index <= value.end_mark.index:
                below = _path_to(value, index)
                return None if below is None else (str(key.value), *below)
    elif isinstance(node, yaml.SequenceNode):
        for position, item in enumerate(node.value):
            if item.start_mark.index <= index <= item.end_mark.index:
                below = _path_to(item, index)
                return None if below is None else (position, *below)
    return ()


@dataclass(frozen=True)
class Document:
    """One YAML document as data, with its nodes kept so every field can be reported with its line.

    Serves ``kind.yaml``, CR files and CRDs alike.  ``validate`` and ``problems``
    check the data against a JSON Schema: one that names its draft (``$schema``, as
    kind.schema.json does) is read as that draft, any other as a CRD's OpenAPI v3
    schema, Kubernetes extensions included (``engine.core.model.structural``).
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
        text = read_text(file, error_type)
        documents = []
        node: yaml.Node | None = None
        try:
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
            field = None
            if isinstance(error, ConstructorError) and node is not None and error.problem_mark is not None:
                field = _field(_path_to(node, error.problem_mark.index) or ()) or None
            raise error_type(problem, file=str(file), line=line, field=field) from error
        return documents

    @property
    def line(self) -> int:
        return self.node.start_mark.line + 1

    def error(self, message: str, path: FieldPath) -> StencilError:
        """An error at the line of the field ``path`` (or of the nearest field that exists)."""
        field = _field(path) or None
        return self.error_type(message, file=str(self.file), line=self.line_of(path), field=field)

    def expression(self, text: str, path: FieldPath, names: frozenset[str] = CONTEXT_NAMES) -> Expression:
        """The rule at ``path``, compiled: a status rule, or one that reads ``names``."""
        return compile_expression(
            text, file=str(self.file), line=self.line_of(path), field=_field(path), names=names
        )

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
        """Raise the most telling problem of the data at ``path`` (or ``data``) against ``schema``, if any."""
        found = self._errors(schema, path, data, closed)
        if found:
            raise self._located(found[0], path)  # the shallowest: a missing parent before its fields

    def problems(
        self, schema: dict[str, Any], path: FieldPath = (), *, data: Any = None, closed: bool = False
    ) -> list[StencilError]:
        """Every problem of the data at ``path`` (or ``data``) against ``schema``, in line order.

        ``closed`` reads ``schema`` as the API server reads a CRD's under strict field
        validation: a field the schema does not name is an error (``structural.strict``).
        """
        located = [self._located(error, path) for error in self._errors(schema, path, data, closed)]
        return sorted(located, key=lambda error: error.line or 0)

    def _errors(
        self, schema: dict[str, Any], path: FieldPath, data: Any, closed: bool
    ) -> list[jsonschema.ValidationError]:
        value: Any = data
        if data is None:
            value = self.data
            for part in path:
                value = value[part]
        return structural.problems(structural.strict(schema) if closed else schema, value)

    def _located(self, error: jsonschema.ValidationError, path: FieldPath) -> StencilError:
        return self.error(error.message, (*path, *error.absolute_path))


def load_all(file: Path, error_type: type[StencilError] = StencilError) -> list[dict[str, Any]]:
    """The mapping documents of a YAML file, read strictly (``Document.read_all``); others dropped."""
    return [doc.data for doc in Document.read_all(file, error_type) if isinstance(doc.data, dict)]
