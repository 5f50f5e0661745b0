"""A CRD schema compiled once into a yes-or-no check, so that a valid CR costs little.

``structural.problems`` asks ``jsonschema`` for every error, with a message and a path for
each; it rebuilds a validator for each field it descends into, which makes most of the
cost of checking a CR that has no error at all, the common case.  ``valid`` answers only
"does ``value`` break ``schema``?", from closures made once per schema; a caller asks
``structural.problems`` for the errors only when the answer is yes.

The answer is the one ``structural.problems`` would give, by construction: each keyword
that judges a value alone (``type``, ``pattern``, ``format``, ``enum``, the bounds, the
list types...) is the very function of ``keywords`` that ``jsonschema`` calls; only the
descent into properties, items and combinations (``allOf``, ``anyOf``, ``oneOf``, ``not``,
``propertyNames``) is done here, as ``jsonschema`` does it.  A ``$ref`` is followed through
the validator's own resolver, as ``jsonschema`` follows it, and, as in the dialect's draft 4, the
keywords beside it are ignored; each schema a reference reaches is compiled once, so the
built-in kinds' OpenAPI definitions, which refer to each other (and to themselves), compile
too.  A schema with a keyword this does not compile (``patternProperties``, ``dependencies``,
``additionalItems``, a ``$schema`` of its own) gets no predicate: ``compile`` gives None, and
the caller asks ``structural.problems`` every time.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from typing import Any

from jsonschema.protocols import Validator
from referencing.exceptions import Unresolvable

from engine.core.model.crds import structural
from engine.core.model.crds.keywords import KEYWORDS

Predicate = Callable[[Any], bool]

# The keywords jsonschema applies that are compiled here by descending (the rest of its
# validators are leaf keywords, called as they are, or keywords this leaves to jsonschema).
_DESCENDING = frozenset(
    {"properties", "additionalProperties", "items", "allOf", "anyOf", "oneOf", "not", "propertyNames"}
)
_NOT_COMPILED = frozenset({"patternProperties", "dependencies", "additionalItems"})
# The predicates of the schemas references reached in the compile under way, by the schema's
# identity (the schema is kept beside its predicate, so that its id is not reused).
_REACHED: contextvars.ContextVar[dict[int, tuple[Any, Predicate]]] = contextvars.ContextVar("reached")


class _NotCompiled(Exception):
    pass


def compile(schema: structural.Schema, validator: Validator | None = None) -> Predicate | None:
    """Whether a value breaks none of ``schema`` (True) or some of it (False), as
    ``not structural.problems(schema, value)`` (or ``validator``'s errors: one of the dialect's, for
    ``schema``, with the registry its references are found in); None for a schema this does not
    compile."""
    if not isinstance(schema, dict) or "$schema" in schema:
        return None
    reached = _REACHED.set({})
    try:
        return _compiled(schema, validator or structural.validator_for(schema))
    except _NotCompiled:
        return None
    finally:
        _REACHED.reset(reached)


def _compiled(schema: Any, validator: Validator) -> Predicate:
    if not isinstance(schema, dict):
        raise _NotCompiled
    if "$ref" in schema:
        return _reference(schema["$ref"], validator)  # draft 4: the keywords beside it are ignored
    known = type(validator).VALIDATORS
    checks: list[Predicate] = []
    for keyword, argument in schema.items():
        if keyword not in known:
            continue  # an annotation (description, default...) or a keyword the dialect ignores
        if keyword in _NOT_COMPILED:
            raise _NotCompiled
        if keyword == "type":
            checks.append(_type(argument, schema, validator))
        elif keyword in _DESCENDING:
            checks.append(_DESCENT[keyword](argument, schema, validator))
        else:
            leaf = KEYWORDS.get(keyword, known[keyword])
            checks.append(_leaf(leaf, argument, schema, validator))
    if len(checks) == 1:
        return checks[0]
    return lambda value: all(check(value) for check in checks)


def _reference(ref: Any, validator: Validator) -> Predicate:
    """The predicate of the schema ``ref`` names, found as ``jsonschema`` finds it; a schema that a
    reference reaches again while it is compiled (a definition that refers to itself) is checked
    through a cell filled once its predicate is made."""
    if not isinstance(ref, str):
        raise _NotCompiled
    try:
        resolved = validator._resolver.lookup(ref)  # type: ignore[attr-defined]
    except Unresolvable as error:  # jsonschema says so when asked
        raise _NotCompiled from error
    reached = _REACHED.get()
    target = resolved.contents
    if id(target) in reached:
        return reached[id(target)][1]
    cell: list[Predicate] = []
    reached[id(target)] = (target, lambda value: cell[0](value))
    predicate = _compiled(target, validator.evolve(schema=target, _resolver=resolved.resolver))
    cell.append(predicate)
    reached[id(target)] = (target, predicate)
    return predicate


def _type(argument: Any, schema: structural.Schema, validator: Validator) -> Predicate:
    """``keywords``' ``type`` without its generator and message, since it is on every field.

    The dialect's type checks (draft 4's, and ``structural``'s integer) tell a value by its
    Python type alone, except a float's (2.0 is an integer, 2.5 is not): so the answer for
    each other type is asked once and kept."""
    if schema.get("x-kubernetes-int-or-string"):
        return lambda value: True
    names = [argument] if isinstance(argument, str) else list(argument)
    nullable = bool(schema.get("nullable"))
    is_type = validator.is_type
    by_type: dict[type, bool] = {}

    def check(value: Any) -> bool:
        if value is None and nullable:
            return True
        kind = type(value)
        known = by_type.get(kind)
        if known is None:
            known = any(is_type(value, name) for name in names)
            if kind is not float:
                by_type[kind] = known
        return known

    return check


def _leaf(keyword: Any, argument: Any, schema: structural.Schema, validator: Validator) -> Predicate:
    return lambda value: next(keyword(validator, argument, value, schema), None) is None


def _properties(argument: Any, schema: structural.Schema, validator: Validator) -> Predicate:
    if not isinstance(argument, dict):
        raise _NotCompiled
    named = {name: _compiled(sub, validator) for name, sub in argument.items()}

    def check(value: Any) -> bool:
        if not isinstance(value, dict):
            return True
        # The fields the value and the schema share, walked from whichever side has fewer.
        if len(value) < len(named):
            for name, item in value.items():
                check_ = named.get(name)
                if check_ is not None and not check_(item):
                    return False
            return True
        return all(check_(value[name]) for name, check_ in named.items() if name in value)

    return check


def _additional_properties(argument: Any, schema: structural.Schema, validator: Validator) -> Predicate:
    known = schema.get("properties") or {}
    if argument is False:
        return lambda value: not isinstance(value, dict) or all(name in known for name in value)
    if not isinstance(argument, dict):
        return lambda value: True
    extra = _compiled(argument, validator)

    def check(value: Any) -> bool:
        if not isinstance(value, dict):
            return True
        return all(extra(item) for name, item in value.items() if name not in known)

    return check


def _items(argument: Any, schema: structural.Schema, validator: Validator) -> Predicate:
    if not isinstance(argument, dict):
        raise _NotCompiled  # a tuple of item schemas
    item = _compiled(argument, validator)
    return lambda value: not isinstance(value, list) or all(item(one) for one in value)


def _options(argument: Any, validator: Validator) -> list[Predicate]:
    if not isinstance(argument, list):
        raise _NotCompiled
    return [_compiled(option, validator) for option in argument]


def _all_of(argument: Any, schema: structural.Schema, validator: Validator) -> Predicate:
    options = _options(argument, validator)
    return lambda value: all(option(value) for option in options)


def _any_of(argument: Any, schema: structural.Schema, validator: Validator) -> Predicate:
    options = _options(argument, validator)
    return lambda value: any(option(value) for option in options)


def _one_of(argument: Any, schema: structural.Schema, validator: Validator) -> Predicate:
    options = _options(argument, validator)
    return lambda value: sum(1 for option in options if option(value)) == 1


def _not(argument: Any, schema: structural.Schema, validator: Validator) -> Predicate:
    inner = _compiled(argument, validator)
    return lambda value: not inner(value)


def _property_names(argument: Any, schema: structural.Schema, validator: Validator) -> Predicate:
    name = _compiled(argument, validator)
    return lambda value: not isinstance(value, dict) or all(name(key) for key in value)


_DESCENT: dict[str, Callable[[Any, structural.Schema, Validator], Predicate]] = {
    "properties": _properties,
    "additionalProperties": _additional_properties,
    "items": _items,
    "allOf": _all_of,
    "anyOf": _any_of,
    "oneOf": _one_of,
    "not": _not,
    "propertyNames": _property_names,
}
