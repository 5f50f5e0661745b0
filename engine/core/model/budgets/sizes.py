"""Sizes: what an operation would build, estimated from its operands before it runs.

Every operation whose result can outgrow its operands (``*``, ``**``, ``%``, ``+``, a width or
precision in a format, padding, ``replace``, ``translate``, ``to_bytes``...) is sized here from
what it is given, without building anything, so the caller can charge the running ``Budget`` and
refuse what would not fit.  Integers are sized by bits, since time, not memory, is what a huge
power costs.  These are plain functions of values, shared by the operators (``binop``), the
allowlisted methods (``budgets.call``) and the filters (``filters``).
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from engine.core.model.budgets.limits import Budget

# -- sizes of values ------------------------------------------------------------------------

_SEQUENCES = (str, bytes, list, tuple)


def rough_len(value: Any) -> int:
    """A value's length as text, estimated without building it (strings, bytes and numbers)."""
    if isinstance(value, str | bytes):
        return len(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return value.bit_length() // 3 + 2  # decimal digits, rounded up
    return 32 if isinstance(value, float | bool | type(None)) else 0  # others exist already


def as_int(value: Any) -> int | None:
    """``value`` if it is an integer (a bool is not one), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


# -- operators ------------------------------------------------------------------------------


def binop(operator: str, left: Any, right: Any, budget: Budget) -> None:
    """Charge what ``left <operator> right`` would build, or refuse it before it runs."""
    what = f"`{operator}`"
    if operator == "*":
        for sequence, count in ((left, right), (right, left)):
            if isinstance(sequence, _SEQUENCES) and isinstance(count, int):
                budget.charge(len(sequence) * max(count, 0), what)
                return
        if as_int(left) is not None and as_int(right) is not None:
            budget.bits(left.bit_length() + right.bit_length(), what)
    elif operator == "**":
        if as_int(left) is not None and as_int(right) is not None and right > 0 and abs(left) > 1:
            budget.bits(abs(left).bit_length() * right, what)
    elif operator == "%":
        if isinstance(left, str | bytes):
            text = left if isinstance(left, str) else left.decode("latin-1")
            budget.charge(percent_size(text, right), what)
    elif operator == "+" and isinstance(left, _SEQUENCES) and isinstance(right, _SEQUENCES):
        budget.charge(len(left) + len(right), what)


# -- printf and str.format ------------------------------------------------------------------

# A width or precision in a format spec: "{:>120}", "{:.9f}", "%-120s", "%.9f".
_NUMBERS = re.compile(r"\d+")
_PERCENT_SPEC = re.compile(r"%(?:\([^)]*\))?[-#0 +]*(\*|\d+)?(?:\.(\*|\d+))?([a-zA-Z%])")
# ``repr`` and ``ascii`` may write a character as ``\U0001f600``: ten for one.
_REPR_GROWTH = 10


def _widths(numbers: Iterable[str]) -> int:
    """The sum of widths and precisions written in a spec (one of twelve digits or more is huge)."""
    return sum(int(n) if len(n) < 12 else 10**12 for n in numbers)


def _numbers_among(values: Iterable[Any]) -> int:
    return sum(abs(v) for v in values if as_int(v) is not None)


def format_size(template: str, args: Sequence[Any], kwargs: Mapping[str, Any]) -> int:
    """An upper bound of ``template.format(*args, **kwargs)``'s length: each field may be the
    longest value, padded to every width and precision the spec names."""
    try:
        fields = [f for f in string.Formatter().parse(template) if f[1] is not None]
    except ValueError:
        return len(template)  # str.format refuses it without building anything
    values = (*args, *kwargs.values())
    longest = max((rough_len(v) for v in values), default=0)
    size = len(template)
    for _, _, spec, conversion in fields:
        size += longest * (_REPR_GROWTH if conversion in ("r", "a") else 1)
        size += _widths(_NUMBERS.findall(spec or ""))
        if "{" in (spec or ""):  # "{:>{w}}": a width given as an argument
            size += _numbers_among(values)
    return size


def percent_size(template: str, args: Any) -> int:
    """An upper bound of ``template % args``'s length (printf-style rules)."""
    values: tuple[Any, ...]
    if isinstance(args, Mapping):
        values = tuple(args.values())
    else:
        values = args if isinstance(args, tuple) else (args,)
    longest = max((rough_len(v) for v in values), default=0)
    size = len(template)
    for match in _PERCENT_SPEC.finditer(template):
        width, precision, conversion = match.groups()
        size += longest * (_REPR_GROWTH if conversion in ("r", "a") else 1)
        size += _widths(n for n in (width, precision) if n and n != "*")
        if "*" in (width, precision):  # "%*d": a width given as an argument
            size += _numbers_among(values)
    return size


# -- methods ------------------------------------------------------------------------------


def method_size(owner: Any, name: str, args: Sequence[Any], kwargs: Mapping[str, Any]) -> int | None:
    """The length ``owner.<name>(*args, **kwargs)`` would have, for the methods that grow."""
    first = args[0] if args else None
    if isinstance(owner, int):
        if name == "to_bytes":
            length = kwargs.get("length", 1 if first is None else first)
            return length if isinstance(length, int) else None
        return None
    text: str | bytes = owner
    if name in ("ljust", "rjust", "center", "zfill"):
        return max(len(text), first) if isinstance(first, int) else None
    if name == "expandtabs":
        tabsize = kwargs.get("tabsize", 8 if first is None else first)
        tab = "\t" if isinstance(text, str) else b"\t"
        return len(text) + text.count(tab) * max(tabsize, 0) if as_int(tabsize) is not None else None  # type: ignore[arg-type]
    if name == "replace" and len(args) >= 2 and isinstance(args[0], str | bytes):
        found = len(text) + 1 if not args[0] else text.count(args[0])  # type: ignore[arg-type]
        limit = args[2] if len(args) > 2 else kwargs.get("count", -1)
        if as_int(limit) is not None and limit >= 0:
            found = min(found, limit)
        return len(text) + found * max(rough_len(args[1]) - len(args[0]), 0)
    if name == "translate" and first is not None:
        table = (
            first.values() if isinstance(first, Mapping) else first if isinstance(first, list | tuple) else ()
        )
        return len(text) * max([1, *(rough_len(v) for v in table)])
    if name in ("format", "format_map") and isinstance(text, str):
        values = first if name == "format_map" and isinstance(first, Mapping) else {}
        return format_size(text, args if name == "format" else (), {**values, **kwargs})
    if name == "encode":
        return 4 * len(text)
    if name == "hex":
        return 3 * len(text)
    return None
