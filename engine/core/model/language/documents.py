"""Strict YAML documents: loaded without surprises, checked against a schema with their lines.

One set of YAML rules serves ``kind.yaml``, rendered templates, CR files and CRDs
(``yamlrules.StrictLoader``: no duplicate keys, no anchors or aliases, JSON data only),
so a document means what it says to every reader.  ``Document`` keeps the YAML
*nodes* next to the data, so a problem found in the data (by ``jsonschema``, with the
keywords of ``engine.core.model.crds.structural``) can name the file, line and field it is about.

A document a user applies with kubectl (a CR, an example, a fixture) is read by
``read_applied``, which refuses a key that kubectl reads otherwise (``Document.kubectl_keys``).

Hostile input is refused before it costs anything, with the line it is on: a file is read
only if it is a regular file of at most ``MAX_FILE_BYTES`` (``read_text``): a device never
ends and a pipe may never start; a text is bounded in depth and its scalars are JSON data
(``yamlrules``, whose names are also read here: ``documents.StrictLoader``, ``MAX_DEPTH``...).

Every limit, with its reason, is listed in docs/limits.md.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import yaml
from yaml.constructor import ConstructorError

from engine.core.model.crds import structural
from engine.core.model.errors import KindError, StencilError
from engine.core.model.language import yamlrules
from engine.core.model.language.expressions import CONTEXT_NAMES, Expression, compile_expression
from engine.core.model.language.yamlrules import INT64_MAX as INT64_MAX
from engine.core.model.language.yamlrules import INT64_MIN as INT64_MIN
from engine.core.model.language.yamlrules import MAX_DEPTH as MAX_DEPTH
from engine.core.model.language.yamlrules import StrictLoader as StrictLoader
from engine.core.model.language.yamlrules import check_shape as check_shape
from engine.core.model.language.yamlrules import yaml_problem as yaml_problem

# -- limits ----------------------------------------------------------------------------

# The largest file read as YAML: the API server takes request bodies of up to 3 MiB,
# so no object it could be sent is larger.  Parsing costs some microseconds a
# node, so the densest file of this size (a list of 1.5 million numbers) takes
# seconds and some hundreds of megabytes, not minutes or gigabytes.
MAX_FILE_BYTES = 3 * 1024 * 1024


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


# -- YAML documents, node by node ----------------------------------------------------

FieldPath = tuple[str | int, ...]

# The plain scalars kubectl reads as booleans and this loader as strings.  kubectl (and Helm)
# read YAML with sigs.k8s.io/yaml, over go-yaml v2, whose YAML 1.1 booleans include y, Y, n
# and N; PyYAML's leave those four out (both readers agree on yes, no, on, off, true, false).
# A boolean key is sent as its string: ``spec: {n: 3}`` reaches the API server as
# ``{"false": 3}``.  No author means that, and reading ``n`` as ``"false"`` here would turn
# one mistake into a puzzle, so such a key in a document kubectl applies is refused instead.
KUBECTL_BOOLEAN_KEYS = {"y": "true", "Y": "true", "n": "false", "N": "false"}


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
    schema, Kubernetes extensions included (``engine.core.model.crds.structural``).
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
                    data = yamlrules.constructed(loader, node)
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

    def kubectl_keys(self) -> list[StencilError]:
        """An error at each unquoted key ``y``, ``Y``, ``n`` or ``N``, which kubectl sends as
        ``"true"`` or ``"false"`` (``KUBECTL_BOOLEAN_KEYS``), in line order."""
        return [
            self.error_type(
                f"kubectl reads the unquoted key {key} as the boolean {sent} (YAML 1.1) and sends the "
                f'key "{sent}"; quote it ("{key}") to keep the letter',
                file=str(self.file),
                line=line,
                field=_field(path),
            )
            for path, key, sent, line in _kubectl_keys(self.node, ())
        ]

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
                found = [(k, v) for k, v in node.value if yamlrules.key_text(k) == part]
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


def _kubectl_keys(node: yaml.Node, path: FieldPath) -> list[tuple[FieldPath, str, str, int]]:
    """Each plain key of ``node`` that kubectl reads as a boolean: its path, text, what kubectl
    sends and its line.  The nesting is bounded by ``MAX_DEPTH``, so the recursion is too."""
    found: list[tuple[FieldPath, str, str, int]] = []
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            sent = KUBECTL_BOOLEAN_KEYS.get(key.value) if isinstance(key, yaml.ScalarNode) else None
            if sent is not None and not key.style:  # a quoted "n" is the letter to kubectl too
                found.append(((*path, key.value), key.value, sent, key.start_mark.line + 1))
            found += _kubectl_keys(value, (*path, str(key.value)))
    elif isinstance(node, yaml.SequenceNode):
        for position, item in enumerate(node.value):
            found += _kubectl_keys(item, (*path, position))
    return found


def read_applied(file: Path, error_type: type[StencilError] = StencilError) -> list[Document]:
    """The documents of ``file``, one a user applies with kubectl (a CR, an example, a fixture):
    ``Document.read_all``, with the first key kubectl would read otherwise raised
    (``Document.kubectl_keys``), so what is read here is what the API server is sent."""
    found = Document.read_all(file, error_type)
    for document in found:
        refused = document.kubectl_keys()
        if refused:
            raise refused[0]
    return found


def load_all(file: Path, error_type: type[StencilError] = StencilError) -> list[dict[str, Any]]:
    """The mapping documents of a YAML file, read strictly (``Document.read_all``); others dropped."""
    return [doc.data for doc in Document.read_all(file, error_type) if isinstance(doc.data, dict)]
