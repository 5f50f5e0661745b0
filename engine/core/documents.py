"""Strict YAML documents: loaded without surprises, checked against a schema with their lines.

One set of YAML rules serves ``kind.yaml``, rendered templates, CR files and CRDs:
no duplicate keys, no anchors or aliases, JSON data only (``StrictLoader``),
so a document means what it says to every reader.  ``Document`` keeps the YAML
*nodes* next to the data, so a problem found in the data (by ``jsonschema``, with the
keywords of ``engine.core.structural``) can name the file, line and field it is about.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, cast

import jsonschema
import yaml
from yaml.composer import ComposerError
from yaml.constructor import ConstructorError, SafeConstructor
from yaml.error import Mark, MarkedYAMLError

from engine.core import structural
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


@dataclass(frozen=True)
class Document:
    """One YAML document as data, with its nodes kept so every field can be reported with its line.

    Serves ``kind.yaml``, CR files and CRDs alike.  ``validate`` and ``problems``
    check the data against a JSON Schema: one that names its draft (``$schema``, as
    kind.schema.json does) is read as that draft, any other as a CRD's OpenAPI v3
    schema, Kubernetes extensions included (``engine.core.structural``).
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
