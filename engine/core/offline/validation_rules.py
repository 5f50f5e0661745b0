"""A CRD's CEL rules (``x-kubernetes-validations``), run offline as the API server runs them on create.

Each rule is evaluated with ``self`` bound to the value of the field whose schema holds
it (``oldSelf`` is absent: offline, every CR is being created).  A rule that gives
``false`` is a ``Violation``: its ``message`` (or ``messageExpression``, or
"failed rule: <rule>"), at the field the rule names with ``fieldPath``.

cel-python evaluates the rules, calling the Kubernetes CEL functions that CRDs reach for
from ``cel_library``.  What this cannot evaluate the way the API server would (a function it
lacks, a construct cel-python does not parse) is never passed in silence nor a crash: it
is an ``Unchecked`` note, "cannot check rule <rule> offline: <why>", for the caller to show.
An evaluation error the server would also hit (a missing field, a malformed CIDR given to
``cidr()``) is a violation, as it is there.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import celpy
import celpy.adapter
import celpy.celparser
from celpy import celtypes
from celpy.evaluation import CELEvalError

from engine.core.model.crds import structural
from engine.core.offline import cel_library, cel_native

FieldPath = tuple[str | int, ...]
_REASONS = {
    "FieldValueInvalid": "Invalid value",
    "FieldValueForbidden": "Forbidden",
    "FieldValueRequired": "Required value",
    "FieldValueDuplicate": "Duplicate value",
}


@dataclass(frozen=True)
class Violation:
    """A rule that gave false (or failed as it would on the server) for a value."""

    path: FieldPath  # the field reported: the rule's own, or where its fieldPath points
    message: str
    rule: str
    value: Any  # the value at ``path`` (``self`` if the field path leads nowhere)
    reason: str = "FieldValueInvalid"


@dataclass(frozen=True)
class Unchecked:
    """A rule this cannot evaluate as the API server would, and why."""

    path: FieldPath
    rule: str
    why: str

    def __str__(self) -> str:
        return f"cannot check rule {self.rule!r} offline: {self.why}"


def check(schema: structural.Schema, value: Any) -> tuple[list[Violation], list[Unchecked]]:
    """Every rule under ``schema`` run on ``value``: the ones it breaks, and the ones it could not run."""
    return Rules(schema).check(value)


class Rules:
    """The rules of one schema, found and compiled once (per CRD, not per CR).

    ``check`` then walks only the parts of a value whose schema holds a rule somewhere below.
    With ``native`` (the default) each rule is tried first by the C++ runtime (``cel_native``);
    without, by cel-python alone: the answers are the same, only slower.
    """

    def __init__(self, schema: structural.Schema, *, native: bool = True) -> None:
        self._root = _plan(schema, native)

    def __bool__(self) -> bool:
        return self._root is not None

    def check(self, value: Any) -> tuple[list[Violation], list[Unchecked]]:
        """Every rule run on ``value``: the ones it breaks, and the ones it could not run."""
        violations: list[Violation] = []
        unchecked: list[Unchecked] = []
        if self._root is not None:
            for path, node, node_value in _nodes(self._root, value, ()):
                for rule in node.rules:
                    outcome = _run(rule, node.schema, node_value, path)
                    if isinstance(outcome, Violation):
                        violations.append(outcome)
                    elif isinstance(outcome, Unchecked):
                        unchecked.append(outcome)
        return violations, unchecked


def has_rules(schema: structural.Schema) -> bool:
    """Whether ``schema`` holds a CEL rule anywhere that ``check`` looks."""
    if not isinstance(schema, dict):
        return False
    if schema.get("x-kubernetes-validations"):
        return True
    inner = [
        *(schema.get("properties") or {}).values(),
        schema.get("items"),
        schema.get("additionalProperties"),
    ]
    return any(has_rules(sub) for sub in inner)


@dataclass(frozen=True)
class _Rule:
    entry: dict[str, Any]
    native: Any  # the rule compiled for the C++ runtime (``cel_native``), or None


@dataclass(frozen=True)
class _Node:
    """A schema with rules at or below it; the parts without any are left out."""

    schema: structural.Schema
    rules: tuple[_Rule, ...]
    named: frozenset[str]  # every property the schema names, with rules below it or not
    properties: dict[str, _Node]
    extra: _Node | None
    items: _Node | None


def _plan(schema: Any, native: bool) -> _Node | None:
    if not isinstance(schema, dict):
        return None
    rules = tuple(
        _Rule(entry, _native(entry["rule"]) if native else None)
        for entry in schema.get("x-kubernetes-validations") or ()
        if isinstance(entry, dict)
        and isinstance(entry.get("rule"), str)
        # a transition rule: the server runs it on updates only, and offline is a create
        and not ("oldSelf" in entry["rule"] and not entry.get("optionalOldSelf"))
    )
    named = schema.get("properties") or {}
    properties = {key: node for key, sub in named.items() if (node := _plan(sub, native)) is not None}
    extra = _plan(schema.get("additionalProperties"), native)
    items = _plan(schema.get("items"), native)
    if not (rules or properties or extra or items):
        return None
    return _Node(schema, rules, frozenset(named), properties, extra, items)


# cel-python evaluates by recursion, so a rule nested deeper than this may be past what it can
# run; such a rule is left to it, so that its note stands ("nests too deeply for cel-python").
_NATIVE_DEPTH = 200  # cel-python runs out of stack at about 450 (Python allows 1,000 frames)


def _native(rule: str) -> Any:
    """The rule for the C++ first pass, only if cel-python takes it too (else its note stands)."""
    try:
        tree = _compiled(rule)
    except _CannotEvaluate:
        return None
    return cel_native.program(rule) if _depth(tree) <= _NATIVE_DEPTH else None


def _depth(tree: Any) -> int:
    deepest, stack = 0, [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        stack += [(child, depth + 1) for child in getattr(node, "children", ()) if hasattr(child, "children")]
    return deepest


def _nodes(node: _Node, value: Any, path: FieldPath) -> Iterator[tuple[FieldPath, _Node, Any]]:
    """Each value with its plan, outermost first; rules do not run on absent or null values."""
    if value is None:
        return
    yield path, node, value
    if isinstance(value, dict):
        if node.properties or node.extra:
            for key, item in value.items():
                sub = node.properties.get(key) if key in node.named else node.extra
                if sub is not None:
                    yield from _nodes(sub, item, (*path, key))
    elif isinstance(value, list) and node.items is not None:
        for index, item in enumerate(value):
            yield from _nodes(node.items, item, (*path, index))


# -- one rule ---------------------------------------------------------------------------------


def _run(
    rule_: _Rule, schema: structural.Schema, value: Any, path: FieldPath
) -> Violation | Unchecked | None:
    entry = rule_.entry
    rule: str = entry["rule"]
    if rule_.native is not None:
        try:
            if cel_native.holds(rule_.native, cel_native.plain(schema, value, _escaped)):
                return None
        except cel_native.Unsupported:
            pass  # cel-python judges it
    activation = {"self": to_cel(schema, value)}
    try:
        result = _evaluate(rule, activation)
    except _CannotEvaluate as error:
        return Unchecked(path, rule, str(error))
    except CELEvalError as error:
        if not _server_would_fail(error):
            return Unchecked(path, rule, _why(error))
        message = f"rule evaluation error: {_why(error)}"
        return Violation(path, message, rule, value, entry.get("reason") or "FieldValueInvalid")
    if not isinstance(result, celtypes.BoolType):
        return Unchecked(path, rule, f"it gave {type(result).__name__}, not a boolean")
    if result:
        return None
    where = (*path, *_field_path(entry.get("fieldPath")))
    return Violation(
        where,
        _message(entry, activation),
        rule,
        _value_at(value, where[len(path) :]),
        entry.get("reason") or "FieldValueInvalid",
    )


def _message(entry: dict[str, Any], activation: dict[str, Any]) -> str:
    """The rule's message: its messageExpression's string if that evaluates, else message, else the rule."""
    fallback = entry.get("message") or f"failed rule: {entry['rule']}"
    expression = entry.get("messageExpression")
    if isinstance(expression, str):
        try:
            text = _evaluate(expression, activation)
        except (_CannotEvaluate, CELEvalError):
            return fallback  # the server, too, falls back to message when the expression fails
        if isinstance(text, str) and text.strip():
            return str(text)
    return str(fallback)


def reason_text(reason: str) -> str:
    """How the API server words a rule's ``reason`` (``FieldValueForbidden`` -> "Forbidden")."""
    return _REASONS.get(reason, "Invalid value")


_STEP = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)|\['((?:[^'\\]|\\.)*)'\]|\[([0-9]+)\]")


def _field_path(text: Any) -> FieldPath:
    """``.spec.ports['http']`` -> ``("spec", "ports", "http")``; nothing for an unreadable path."""
    if not isinstance(text, str):
        return ()
    steps: list[str | int] = []
    at = 0
    while at < len(text):
        step = _STEP.match(text, at)
        if step is None:
            return ()
        name, quoted, index = step.groups()
        steps.append(name if name is not None else (quoted if quoted is not None else int(index)))
        at = step.end()
    return tuple(steps)


def _value_at(value: Any, path: FieldPath) -> Any:
    for part in path:
        try:
            value = value[part]
        except (KeyError, IndexError, TypeError):
            break
    return value


class _CannotEvaluate(Exception):
    pass


@functools.lru_cache(maxsize=512)
def _compiled(rule: str) -> Any:
    try:
        return environment().compile(rule)
    except celpy.celparser.CELParseError as error:
        first = str(error).strip().splitlines()[0] if str(error).strip() else "parse error"
        raise _CannotEvaluate(f"cel-python cannot parse it ({first})") from None


@functools.lru_cache(maxsize=512)
def _program(rule: str) -> Any:
    return environment().program(_compiled(rule), functions=cel_library.LIBRARY)


def _evaluate(rule: str, activation: dict[str, Any]) -> Any:
    program = _program(rule)
    try:
        return program.evaluate(activation)
    except CELEvalError:
        raise
    except RecursionError:
        raise _CannotEvaluate("it nests too deeply for cel-python") from None
    except Exception as error:  # cel-python's own gaps surface as assorted Python errors
        raise _CannotEvaluate(f"cel-python failed on it ({type(error).__name__}: {error})") from None


def _server_would_fail(error: CELEvalError) -> bool:
    kind = error.args[1] if len(error.args) > 1 else None
    if kind is cel_library.ServerWouldFail or kind is ZeroDivisionError:
        return True
    return kind is KeyError and str(error.args[0]).startswith("no such")


def _why(error: CELEvalError) -> str:
    message = str(error.args[0]) if error.args else "evaluation failed"
    if message.startswith("undeclared reference to"):
        name = error.args[2][0] if len(error.args) > 2 and error.args[2] else "?"
        return f"no function {name!r} here (not in cel-python nor in this library of Kubernetes' CEL)"
    return message


@functools.cache
def environment() -> celpy.Environment:
    """cel-python's environment, made (its parser built: about 0.1 s) by the first rule that needs
    it: a rule the C++ runtime finds holding never does."""
    return celpy.Environment()


# -- values, as the API server gives them to CEL ------------------------------------------------------

_RESERVED = frozenset(
    [
        "true",
        "false",
        "null",
        "in",
        "as",
        "break",
        "const",
        "continue",
        "else",
        "for",
        "function",
        "if",
        "import",
        "let",
        "loop",
        "package",
        "namespace",
        "return",
        "var",
        "void",
        "while",
    ]
)


@functools.lru_cache(maxsize=4096)
def _escaped(name: str) -> str:
    """A property name as CEL rules spell it (``x-y`` -> ``x__dash__y``, ``if`` -> ``__if__``)."""
    if name in _RESERVED:
        return f"__{name}__"
    escaped = name.replace("__", "__underscores__")
    for char, word in ((".", "dot"), ("-", "dash"), ("/", "slash")):
        escaped = escaped.replace(char, f"__{word}__")
    return escaped


def to_cel(schema: Any, value: Any) -> Any:
    """``value`` as a CEL value, with an object's property names escaped as Kubernetes escapes them."""
    schema = schema if isinstance(schema, dict) else {}
    if isinstance(value, dict):
        properties = schema.get("properties") or {}
        extra = schema.get("additionalProperties")
        converted = {}
        for key, item in value.items():
            sub = properties.get(key, extra if isinstance(extra, dict) else None)
            name = _escaped(key) if key in properties else key
            converted[celtypes.StringType(name)] = to_cel(sub, item)
        return celtypes.MapType(converted)
    if isinstance(value, list):
        return celtypes.ListType([to_cel(schema.get("items"), item) for item in value])
    return celpy.adapter.json_to_cel(value)
