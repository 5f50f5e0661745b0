"""A first pass over a CRD's CEL rules with Google's C++ CEL runtime, for speed.

cel-python (``validation_rules``) walks a rule's parse tree in Python: about 0.3 ms a rule
a value, most of the cost of ``stencil render`` over a folder of CRs.  The C++ runtime
(the ``cel-expr-python`` package) runs a compiled rule in a few microseconds, but it lacks
the Kubernetes library (``cel_library``) and words its errors its own way.  So it only
ever says "this rule holds": a rule that compiles here (standard CEL alone; a rule that
calls a Kubernetes library function does not type-check and is left to cel-python) and
that gives exactly ``true`` on a value made of strings, integers, booleans, nulls, lists
and mappings holds.  Anything else (``false``, an error, a float in the value, a rule this
runtime does not take) is judged again by cel-python, whose verdict, message and wording
stand: the answer is always cel-python's, reached sooner for a rule that holds, the
common case.  The one function both have is ``matches``, which both read with RE2.

Without the package every rule goes to cel-python, as before.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

try:
    from cel_expr_python import cel as _cel  # type: ignore[import-untyped]
except ImportError:  # pragma: no cover - a dependency; without it rules are slower, not different
    _cel = None

_ENVIRONMENT = _cel.NewEnv(variables={"self": _cel.Type.DYN}) if _cel is not None else None
_TRUE_TYPE = _cel.Type.BOOL if _cel is not None else None


class Unsupported(Exception):
    """A value this runtime is not given (a float, a date), so that cel-python judges it."""


@functools.lru_cache(maxsize=1024)
def program(rule: str) -> Any | None:
    """``rule`` compiled for the C++ runtime, once; None for a rule it does not take."""
    if _ENVIRONMENT is None:
        return None
    try:
        return _ENVIRONMENT.compile(rule)
    except RuntimeError:  # a parse or type-check error: an unknown function, a syntax cel-cpp lacks
        return None


def holds(compiled: Any, self_: Any) -> bool:
    """Whether the compiled rule gives exactly ``true`` for ``self`` (a value from ``plain``)."""
    try:
        result = compiled.eval(data={"self": self_})
    except Exception:  # whatever went wrong, cel-python decides
        return False
    return bool(result.type() == _TRUE_TYPE and result.value() is True)


def plain(schema: Any, value: Any, escaped: Callable[[str], str]) -> Any:
    """``value`` as the C++ runtime takes it: an object's property names ``escaped`` as
    Kubernetes escapes them (only those its schema names); raises ``Unsupported`` for a leaf
    that is not a string, an integer, a boolean or null."""
    if isinstance(value, dict):
        schema = schema if isinstance(schema, dict) else {}
        properties = schema.get("properties") or {}
        extra = schema.get("additionalProperties")
        extra = extra if isinstance(extra, dict) else None
        converted = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise Unsupported("a key that is not a string")
            if key in properties:
                converted[escaped(key)] = plain(properties[key], item, escaped)
            else:
                converted[key] = plain(extra, item, escaped)
        return converted
    if isinstance(value, list):
        items = schema.get("items") if isinstance(schema, dict) else None
        return [plain(items, item, escaped) for item in value]
    if value is None or isinstance(value, (str, int)):  # bool is an int
        return value
    raise Unsupported(type(value).__name__)
