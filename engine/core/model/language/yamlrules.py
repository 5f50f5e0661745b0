"""Strict YAML: the one set of rules every YAML text is read with, and the loader that applies them.

``kind.yaml``, rendered templates, CR files, CRDs and the text a template or rule parses with
``fromyaml`` are all read by ``StrictLoader``: libyaml's safe loader narrowed to JSON data (no
duplicate keys, no anchors or aliases, no merge keys, no tags that build anything else), so a
text means what it says to every reader.  Hostile input is refused before it costs anything,
with the line it is on:

* a text is scanned before it is composed (``check_shape``): nesting beyond ``MAX_DEPTH`` stops
  the scan at the level that crosses it, since libyaml's time grows with the square of flow
  nesting and every later walk of the data recurses once per level;
* a scalar becomes JSON data or an error at its line: integers within int64, floats finite,
  mapping keys strings (``1`` and ``true`` become ``"1"`` and ``"true"``, as kubectl's YAML
  reader makes them; a null or fractional key is refused).

It stands apart from ``documents`` (files, schemas and lines) so that what sits below
``documents`` (the library functions the status rules call) can read YAML by the same rules.
What ``stencil render`` writes back is ``engine.tools.yamlwriting``'s.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any, ClassVar, cast

import yaml
from yaml.composer import ComposerError
from yaml.constructor import ConstructorError, SafeConstructor
from yaml.error import Mark, MarkedYAMLError
from yaml.nodes import MappingNode, ScalarNode, SequenceNode
from yaml.reader import Reader

# The deepest nesting of mappings and sequences a document may have.  The API
# server allows 10,000 levels of JSON, but Python walks nested data by recursion
# (a few frames a level, of the 1,000 it allows), and no manifest comes near:
# a CRD's schema, the deepest there is, nests some 30 levels.
MAX_DEPTH = 100
# The integers JSON carries into the API server exactly: it decodes a number as
# int64 when it can, and silently as an inexact float64 when it cannot.
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
# Characters in an integer's YAML form beyond which it cannot be within int64 (0b and
# 64 binary digits, with room for a sign and underscores): refused without converting,
# since converting a long one is what Python limits (4,300 digits) and takes time for.
_INT_MAX_CHARS = 100


# -- strict YAML -------------------------------------------------------------------

_TAG = "tag:yaml.org,2002:"
# YAML 1.1 extras that the API server's YAML reader does not share (a bare date
# would become a datetime here and a string there) are left out, and so is every
# tag that builds something other than JSON data (!!binary, !!set, !!omap...).
_IMPLICIT = frozenset(_TAG + t for t in ("null", "bool", "int", "float", "merge"))
_CONSTRUCTED = tuple(_TAG + t for t in ("null", "bool", "int", "float", "str", "seq", "map"))
# A nesting level needs at least one of these characters, so a text with fewer cannot be too deep.
_NESTING_MARKS = "[{-?:"
# A line that starts with ``---`` or ``...`` ends a document wherever it is (YAML forbids it inside
# a scalar, and libyaml reads it so), so no document's nesting is spread across two pieces of a
# text split there: a file of many small documents is not scanned for being large.
_DOCUMENT_MARKER = re.compile(r"^(?:---|\.\.\.)(?=[ \t\r\n]|$)", re.MULTILINE)
_LIBYAML_TOO_DEEP = "exceeded maximum nesting depth"
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


_STR, _MAP, _SEQ = _TAG + "str", _TAG + "map", _TAG + "seq"
_SCALAR_TAGS = frozenset(_TAG + t for t in ("null", "bool", "int", "float"))  # built by their constructors


class _Unusual(Exception):
    """A node ``constructed`` leaves to the loader's own constructors."""


def constructed(loader: StrictLoader, node: yaml.Node) -> Any:
    """The data of a document's ``node``: what ``loader.construct_document(node)`` gives, errors
    included, without PyYAML's bookkeeping (reading 4,000 CRs took two thirds of the time).

    PyYAML's constructor keeps a record of every node it builds (to resolve aliases, which are
    refused here anyway) and steps through a generator per collection.  Mappings and sequences of
    their own tags, string keys and scalars are built here directly, a scalar other than a string
    by the loader's own constructor for its tag; anything else (an explicit tag, a key that is not
    a string, a repeated key, a merge key, a scalar refused) sends the whole document to the
    loader, which builds it or refuses it with its line.  Only for ``StrictLoader`` itself: a
    subclass's own constructors would be passed by."""
    try:
        return _built(loader, node)
    except (_Unusual, yaml.YAMLError):  # a refusal, too, is the loader's: it meets problems in its order
        return loader.construct_document(node)


def _built(loader: StrictLoader, node: yaml.Node) -> Any:
    tag = node.tag
    if tag == _STR and type(node) is ScalarNode:
        return node.value
    if tag == _MAP and type(node) is MappingNode:
        mapping: dict[str, Any] = {}
        for key_node, value_node in node.value:
            key = key_node.value
            if key_node.tag != _STR or type(key_node) is not ScalarNode or key in mapping:
                raise _Unusual
            mapping[key] = _built(loader, value_node)
        return mapping
    if tag == _SEQ and type(node) is SequenceNode:
        return [_built(loader, item) for item in node.value]
    if type(node) is ScalarNode and tag in _SCALAR_TAGS:
        return loader.yaml_constructors[tag](loader, node)
    raise _Unusual


def key_text(node: yaml.Node) -> str:
    """The string a mapping key's node becomes in the data (``True:`` is ``"true"``), without a
    loader: what finds a key's line from the key the data has."""
    if node.tag == _TAG + "bool" and isinstance(node.value, str):
        return "true" if SafeConstructor.bool_values.get(node.value.lower()) else "false"
    return str(node.value)


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
    if "&" not in text and "*" not in text and max(map(_marks, _DOCUMENT_MARKER.split(text))) <= MAX_DEPTH:
        return  # no anchor, no alias, and too few marks in any one document to nest too deeply
    depth = 0
    try:
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
    except MarkedYAMLError as error:
        # libyaml 0.2.6 (PyYAML 6.0.4) stops at 1,000 levels itself, in its scanner, which reads a
        # flow collection to its end before the first event: the same refusal, said the same way.
        if error.problem != _LIBYAML_TOO_DEEP:
            raise
        raise ComposerError(
            None, None, f"nested more than {MAX_DEPTH} levels deep", error.problem_mark
        ) from None


def _marks(document: str) -> int:
    return sum(map(document.count, _NESTING_MARKS))


def yaml_problem(error: yaml.YAMLError) -> tuple[int | None, str]:
    """The 1-based line and a one-line description of a YAML error."""
    if isinstance(error, MarkedYAMLError):
        mark = error.problem_mark or error.context_mark
        problem = error.problem or "invalid YAML"
        if error.context and error.problem_mark is not None:
            problem = f"{error.context}: {problem}"
        return (mark.line + 1 if mark is not None else None), problem
    return None, str(error)
