"""Budgets: what a Jinja expression may build and how long it may take, checked before it runs.

Templates and status rules are Jinja run on values a tenant writes.  Jinja's sandbox keeps
them from Python's internals, not from size: ``spec.b ** spec.e`` with ``e = 10**8`` is one
C-level operation that holds the interpreter lock for minutes (no clock can interrupt it;
health checks, other parents and signals all wait), and ``'x' * spec.n`` takes gigabytes
before anything could measure it.  So an operation is judged by its operands *before* it
runs:

* An allowlist.  A call reaches only the methods listed here (``_METHODS``), Jinja's own
  helpers (macros, ``loop.cycle``, ``namespace()``...), and functions the engine itself put
  in the context; a filter is one of ``FILTERS``.  Anything else is refused (``NotAllowed``)
  rather than run, so an operation nobody has thought about is out of reach.
* Every operation whose result can outgrow its operands (``*``, ``**``, ``%``, ``+``, a width
  or precision in a format, padding, ``replace``, ``join``, ``translate``, ``to_bytes``,
  ``batch``, ``slice``, ``indent``, ``wordwrap``...) has its result's size estimated from the
  operands and charged to the ``Budget``; one that would not fit is refused (``OverBudget``)
  without being run.  Integers are bounded by bits, since time, not memory, is what a huge
  power costs.
* The clock is read on every attribute, item, call, filter and operator.

``BoundedSandbox`` is the environment that does all three; status rules run in it, each
evaluation under its own ``Budget`` (``running``).  The pure checks (``binop``, ``call``,
``bounded_filters``) are separate so a template's sandbox can apply them too.

    StencilError
    └── BudgetError
        ├── OverBudget    an operation would build more, or run longer, than the budget allows
        └── NotAllowed    an operation that is not on the allowlist
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import re
import string
import time
import types
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from jinja2 import runtime, utils
from jinja2.sandbox import ImmutableSandboxedEnvironment, safe_range

from engine.core.model.errors import StencilError


class BudgetError(StencilError):
    terminal = True


class OverBudget(BudgetError):
    reason = "OverBudget"


class NotAllowed(BudgetError):
    reason = "NotAllowed"


@dataclass(frozen=True)
class Limits:
    """One evaluation's budget: wall-clock seconds, characters (or items, or bytes) that its
    growing operations may build in all, and bits of any integer it computes."""

    seconds: float = 1.0
    chars: int = 1 << 20
    int_bits: int = 1 << 16


DEFAULT_LIMITS = Limits()


class Budget:
    """What is left to one evaluation: its deadline and the characters it may still build."""

    def __init__(self, limits: Limits = DEFAULT_LIMITS) -> None:
        self.limits = limits
        self.deadline = time.monotonic() + limits.seconds
        self.left = limits.chars

    def tick(self) -> None:
        if time.monotonic() > self.deadline:
            raise OverBudget(f"took longer than {self.limits.seconds:g}s")

    def charge(self, size: int, what: str) -> None:
        """Take ``size`` from what is left, or refuse ``what`` before it is built."""
        if size > self.left:
            raise OverBudget(
                f"{what} would build {size} characters or items, more than the "
                f"{self.left} left of this evaluation's {self.limits.chars}"
            )
        self.left -= size

    def bits(self, bits: int, what: str) -> None:
        if bits > self.limits.int_bits:
            raise OverBudget(
                f"{what} would make an integer of about {bits} bits, more than {self.limits.int_bits}"
            )
        self.charge(bits // 3 + 1, what)


CURRENT: ContextVar[Budget] = ContextVar("stencil_budget")


def current() -> Budget:
    """The budget of the evaluation running now (a fresh default one outside any)."""
    budget = CURRENT.get(None)
    return budget if budget is not None else Budget()


@contextlib.contextmanager
def running(limits: Limits = DEFAULT_LIMITS) -> Iterator[Budget]:
    """Run an evaluation under a budget of its own."""
    budget = Budget(limits)
    token = CURRENT.set(budget)
    try:
        yield budget
    finally:
        CURRENT.reset(token)


# -- sizes of values ------------------------------------------------------------------------

_SEQUENCES = (str, bytes, list, tuple)


def rough_len(value: Any) -> int:
    """A value's length as text, estimated without building it (strings, bytes and numbers)."""
    if isinstance(value, str | bytes):
        return len(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return value.bit_length() // 3 + 2  # decimal digits, rounded up
    return 32 if isinstance(value, float | bool | type(None)) else 0  # others exist already


def _int(value: Any) -> int | None:
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
        if _int(left) is not None and _int(right) is not None:
            budget.bits(left.bit_length() + right.bit_length(), what)
    elif operator == "**":
        if _int(left) is not None and _int(right) is not None and right > 0 and abs(left) > 1:
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
    return sum(abs(v) for v in values if _int(v) is not None)


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


# -- calls: the allowlist -------------------------------------------------------------------

_READ_ONLY_STR = frozenset(
    [
        "capitalize",
        "casefold",
        "count",
        "endswith",
        "find",
        "index",
        "isalnum",
        "isalpha",
        "isascii",
        "isdecimal",
        "isdigit",
        "isidentifier",
        "islower",
        "isnumeric",
        "isprintable",
        "isspace",
        "istitle",
        "isupper",
        "lower",
        "lstrip",
        "partition",
        "removeprefix",
        "removesuffix",
        "rfind",
        "rindex",
        "rpartition",
        "rsplit",
        "rstrip",
        "split",
        "splitlines",
        "startswith",
        "strip",
        "swapcase",
        "title",
        "upper",
    ]
)
_GROWING_STR = frozenset(["center", "ljust", "rjust", "zfill", "expandtabs", "replace", "join", "translate"])
# Methods of values, by the type that has them; those in _GROWING_* are sized by _method_size.
_METHODS: tuple[tuple[type | tuple[type, ...], frozenset[str]], ...] = (
    (str, _READ_ONLY_STR | _GROWING_STR | {"format", "format_map", "encode"}),
    (
        bytes,
        (_READ_ONLY_STR - {"casefold", "format", "isdecimal", "isidentifier", "isnumeric", "isprintable"})
        | _GROWING_STR
        | {"decode", "hex"},
    ),
    (int, frozenset({"bit_length", "bit_count", "conjugate", "as_integer_ratio", "to_bytes"})),
    (float, frozenset({"as_integer_ratio", "conjugate", "hex", "is_integer"})),
    ((list, tuple, Sequence), frozenset({"count", "index"})),
    ((dict, Mapping), frozenset({"get", "items", "keys", "values"})),
    ((runtime.LoopContext,), frozenset({"cycle", "changed"})),
    ((utils.Cycler,), frozenset({"next", "reset"})),
)
# Classes' own constructors reached through a value: ``'x'.maketrans``, ``(1).from_bytes``.
_CONSTRUCTORS = frozenset({(str, "maketrans"), (bytes, "fromhex"), (int, "from_bytes"), (float, "fromhex")})
# Callables a template or rule may call as they are: Jinja's helpers and globals.
_JINJA_CALLABLES = (
    runtime.Macro,
    runtime.LoopContext,
    runtime.BlockReference,
    utils.Joiner,
    runtime.Undefined,
)
_JINJA_CLASSES = frozenset({utils.Namespace, utils.Cycler, utils.Joiner, dict})


def _is_engines_own(function: Any) -> bool:
    """A plain function the engine put into a context (``child``, ``condition``...): the sandbox
    hides every ``__`` attribute, so no other function of the engine's is reachable."""
    return isinstance(function, types.FunctionType) and function.__module__.startswith("engine.")


def call(obj: Any, args: tuple[Any, ...], kwargs: dict[str, Any], budget: Budget) -> tuple[Any, ...]:
    """Refuse a call that is not on the allowlist, and charge what an allowed one would build.

    Returns the arguments to call with: a generator given to ``join`` is listed first, to size it.
    """
    budget.tick()
    method = getattr(obj, "__wrapped__", obj)  # str.format as Jinja's sandbox wraps it
    owner = getattr(method, "__self__", None)
    if isinstance(method, types.BuiltinMethodType | types.MethodType | types.MethodWrapperType) and (
        owner is not None and not isinstance(owner, types.ModuleType)
    ):
        name = method.__name__
        if isinstance(owner, type):
            if any(issubclass(owner, t) and name == n for t, n in _CONSTRUCTORS):
                return args
        elif any(isinstance(owner, types_) and name in names for types_, names in _METHODS):
            return _sized(owner, name, args, kwargs, budget)
        of = owner if isinstance(owner, type) else type(owner)
        raise NotAllowed(f"{of.__name__}.{name}() is not among the operations allowed here")
    if (
        isinstance(obj, _JINJA_CALLABLES)
        or obj in _JINJA_CLASSES
        or obj is safe_range
        or _is_engines_own(obj)
    ):
        return args
    raise NotAllowed(f"calling {getattr(obj, '__name__', type(obj).__name__)!s} is not allowed here")


def _sized(
    owner: Any, name: str, args: tuple[Any, ...], kwargs: dict[str, Any], budget: Budget
) -> tuple[Any, ...]:
    what = f"{type(owner).__name__}.{name}()"
    if name == "join" and args and isinstance(owner, str | bytes):
        listed = list(args[0])
        budget.charge(sum(map(rough_len, listed)) + len(owner) * max(len(listed) - 1, 0), what)
        return (listed, *args[1:])
    size = _method_size(owner, name, args, kwargs)
    if size is not None:
        budget.charge(size, what)
    return args


def _method_size(owner: Any, name: str, args: Sequence[Any], kwargs: Mapping[str, Any]) -> int | None:
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
        return len(text) + text.count(tab) * max(tabsize, 0) if _int(tabsize) is not None else None  # type: ignore[arg-type]
    if name == "replace" and len(args) >= 2 and isinstance(args[0], str | bytes):
        found = len(text) + 1 if not args[0] else text.count(args[0])  # type: ignore[arg-type]
        limit = args[2] if len(args) > 2 else kwargs.get("count", -1)
        if _int(limit) is not None and limit >= 0:
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


# -- filters --------------------------------------------------------------------------------


def _batch(bound: inspect.BoundArguments, budget: Budget) -> None:
    # A last batch is filled up to ``linecount`` items: ``[1] | batch(10**9, 0)``.
    if bound.arguments.get("fill_with") is not None and _int(bound.arguments["linecount"]) is not None:
        budget.charge(bound.arguments["linecount"], "batch")


def _slice(bound: inspect.BoundArguments, budget: Budget) -> None:
    slices = bound.arguments["slices"]
    if _int(slices) is not None:  # one list per slice, however short the input
        budget.charge(slices, "slice")


def _center(bound: inspect.BoundArguments, budget: Budget) -> None:
    width = bound.arguments.get("width", 80)
    if _int(width) is not None:
        budget.charge(max(width, len(str(bound.arguments["value"]))), "center")


def _indent(bound: inspect.BoundArguments, budget: Budget) -> None:
    text, width = str(bound.arguments["s"]), bound.arguments.get("width", 4)
    pad = len(width) if isinstance(width, str) else width if _int(width) is not None else 0
    budget.charge(len(text) + (text.count("\n") + 1) * max(pad, 0), "indent")


def _join(bound: inspect.BoundArguments, budget: Budget) -> None:
    listed = list(bound.arguments["value"])
    bound.arguments["value"] = listed
    separator = str(bound.arguments.get("d", ""))
    budget.charge(sum(map(rough_len, listed)) + len(separator) * max(len(listed) - 1, 0), "join")


def _replace(bound: inspect.BoundArguments, budget: Budget) -> None:
    arguments = bound.arguments
    count = arguments.get("count")
    args = (str(arguments["old"]), str(arguments["new"]), *(() if count is None else (count,)))
    size = _method_size(str(arguments["s"]), "replace", args, {})
    budget.charge(size or 0, "replace")


def _wordwrap(bound: inspect.BoundArguments, budget: Budget) -> None:
    text, width = str(bound.arguments["s"]), bound.arguments.get("width", 79)
    if _int(width) is None or width <= 0:
        return  # textwrap refuses it
    wrap = bound.arguments.get("wrapstring") or "\n"
    # textwrap cuts a word longer than the width one piece at a time, copying what is left.
    longest = max(map(len, text.split()), default=0)
    budget.charge(len(text) * (1 + longest // width) + (len(text) // width + 1) * len(str(wrap)), "wordwrap")


def _format(bound: inspect.BoundArguments, budget: Budget) -> None:
    values = bound.arguments.get("kwargs") or bound.arguments.get("args") or ()
    budget.charge(percent_size(str(bound.arguments["value"]), values), "format")


_MAX_JSON_INDENT = 16
_MAX_ROUND_PRECISION = 400  # floor and ceil compute 10 ** precision; no float has more digits


def _tojson(bound: inspect.BoundArguments, budget: Budget) -> None:
    indent = bound.arguments.get("indent")
    if indent is not None and not (_int(indent) is not None and 0 <= indent <= _MAX_JSON_INDENT):
        raise OverBudget(f"tojson: indent must be between 0 and {_MAX_JSON_INDENT}, not {indent!r}")


def _round(bound: inspect.BoundArguments, budget: Budget) -> None:
    precision = bound.arguments.get("precision", 0)
    if _int(precision) is not None and abs(precision) > _MAX_ROUND_PRECISION:
        raise OverBudget(f"round: precision must be at most {_MAX_ROUND_PRECISION}, not {precision}")


def _sum(bound: inspect.BoundArguments, budget: Budget) -> None:
    start = bound.arguments.get("start", 0)
    # Adding lists or strings one to the next copies the total each time: time grows as its square.
    if not isinstance(start, int | float):
        raise NotAllowed("sum adds numbers: its start must be a number")


_Check = Callable[[inspect.BoundArguments, Budget], None]

# Jinja's filters a template or rule may use, each with the check of what it would build.
# Left out: pprint and urlize (their output has no bound worth keeping), striptags (its
# pattern backtracks: time grows as the square of its input), random and lipsum.
FILTERS: dict[str, _Check | None] = {
    **dict.fromkeys(
        [
            "abs",
            "attr",
            "capitalize",
            "count",
            "d",
            "default",
            "dictsort",
            "e",
            "escape",
            "filesizeformat",
            "first",
            "float",
            "forceescape",
            "groupby",
            "int",
            "items",
            "last",
            "length",
            "list",
            "lower",
            "map",
            "max",
            "min",
            "reject",
            "rejectattr",
            "reverse",
            "safe",
            "select",
            "selectattr",
            "sort",
            "string",
            "title",
            "trim",
            "truncate",
            "unique",
            "upper",
            "urlencode",
            "wordcount",
            "xmlattr",
        ]
    ),
    "batch": _batch,
    "slice": _slice,
    "center": _center,
    "indent": _indent,
    "join": _join,
    "replace": _replace,
    "wordwrap": _wordwrap,
    "format": _format,
    "tojson": _tojson,
    "round": _round,
    "sum": _sum,
}


def bounded_filters(
    filters: Mapping[str, Callable[..., Any]], own: Iterable[str] = ()
) -> dict[str, Callable[..., Any]]:
    """``filters`` that are on the allowlist (or in ``own``, the caller's own, already bounded),
    each reading the clock and charging what it would build before it runs."""
    return {
        name: _bounded(name, function, FILTERS.get(name))
        for name, function in filters.items()
        if name in FILTERS or name in own
    }


def _bounded(name: str, function: Callable[..., Any], check: _Check | None) -> Callable[..., Any]:
    # Jinja passes a filter marked pass_context (or the like) that first; an async variant's
    # wrapper may drop it before the plain function it wraps, whose parameters are bound here.
    lead = 1 if utils._PassArg.from_obj(function) is not None else 0
    plain = inspect.unwrap(function)
    parameters = list(inspect.signature(plain).parameters.values())
    signature = inspect.Signature(parameters[1 if utils._PassArg.from_obj(plain) is not None else 0 :])
    # A filter given only the value it filters (``x | tojson``, the common case) is checked
    # without binding, which would cost as much as the rest of the filter: the checks read
    # every parameter but the first by its default.
    first = next(iter(signature.parameters), "")
    alone = bool(first) and all(
        p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        for p in list(signature.parameters.values())[1:]
    )

    @functools.wraps(function)  # keeps Jinja's pass_context marks, so it is called the same way
    def bounded(*args: Any, **kwargs: Any) -> Any:
        budget = current()
        budget.tick()
        if check is None:
            return function(*args, **kwargs)
        if alone and not kwargs and len(args) == lead + 1:
            given = inspect.BoundArguments(signature, {first: args[lead]})
            check(given, budget)
            return function(*args[:lead], given.arguments[first])
        try:
            bound = signature.bind(*args[lead:], **kwargs)
        except TypeError:
            return function(*args, **kwargs)  # the filter says what is wrong with its arguments
        check(bound, budget)
        return function(*args[:lead], *bound.args, **bound.kwargs)

    return bounded


# -- the environment ------------------------------------------------------------------------


class BoundedSandbox(ImmutableSandboxedEnvironment):
    """Jinja's immutable sandbox with every call allowlisted, every growing operation charged
    to the running ``Budget`` before it runs, and the clock read at every step."""

    intercepted_binops = frozenset({"*", "**", "%", "+"})

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        del self.globals["lipsum"]
        self.filters = bounded_filters(self.filters)

    def getattr(self, obj: Any, attribute: str) -> Any:
        current().tick()
        return super().getattr(obj, attribute)

    def getitem(self, obj: Any, argument: Any) -> Any:
        current().tick()
        return super().getitem(obj, argument)

    def call(__self, __context: runtime.Context, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        args = call(__obj, args, kwargs, current())
        return super().call(__context, __obj, *args, **kwargs)

    def call_binop(self, context: runtime.Context, operator: str, left: Any, right: Any) -> Any:
        budget = current()
        budget.tick()
        binop(operator, left, right, budget)
        return super().call_binop(context, operator, left, right)
