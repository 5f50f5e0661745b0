"""Budgets: what a Jinja expression may build and how long it may take, checked before it runs.

Templates and status rules are Jinja run on values a tenant writes.  Jinja's sandbox keeps
them from Python's internals, not from size: ``spec.b ** spec.e`` with ``e = 10**8`` is one
C-level operation that holds the interpreter lock for minutes (no clock can interrupt it;
health checks, other parents and signals all wait), and ``'x' * spec.n`` takes gigabytes
before anything could measure it.  So an operation is judged by its operands *before* it
runs:

* An allowlist.  A call reaches only the methods listed here (``_METHODS``), Jinja's own
  helpers (macros, ``loop.cycle``, ``namespace()``...), and functions the engine itself put in the context; a
  filter is one of ``FILTERS`` (``filters``).  Anything else is refused (``NotAllowed``) rather
  than run, so an operation nobody has thought about is out of reach.
* Every operation whose result can outgrow its operands has its result's size estimated from
  the operands (``sizes``, and each filter's check in ``filters``) and charged
  to the ``Budget``; one that would not fit is refused (``OverBudget``) without being run.
* The clock is read on every attribute, item, call, filter and operator.

``BoundedSandbox`` is the environment that does all three; status rules run in it, each
evaluation under its own ``Budget`` (``running``, in ``limits`` with the errors).  The
pure checks (``binop``, ``call``, ``bounded_filters``) are separate so a template's sandbox can
apply them too.

This module is the part that touches Jinja: the allowlist of what a call may reach (Jinja's
helper classes among it), the wrapping of Jinja's filters and the sandbox itself.  What it
charges and checks is plain Python on values, in the three ``budget_*`` modules, and every name
they define that other code uses is imported from here.
"""

from __future__ import annotations

import functools
import inspect
import types
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from jinja2 import runtime, utils
from jinja2.sandbox import ImmutableSandboxedEnvironment, safe_range

from engine.core import jinja
from engine.core.model.budgets.filters import FILTERS, Check
from engine.core.model.budgets.limits import (
    CURRENT,
    DEFAULT_LIMITS,
    Budget,
    BudgetError,
    Limits,
    NotAllowed,
    OverBudget,
    current,
    running,
)
from engine.core.model.budgets.sizes import binop, format_size, method_size, percent_size, rough_len

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
    size = method_size(owner, name, args, kwargs)
    if size is not None:
        budget.charge(size, what)
    return args


# -- filters ---------------------------------------------------------------------------------


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


def _bounded(name: str, function: Callable[..., Any], check: Check | None) -> Callable[..., Any]:
    # Jinja passes a filter marked pass_context (or the like) that first; an async variant's
    # wrapper may drop it before the plain function it wraps, whose parameters are bound here.
    lead = 1 if jinja.passes_context(function) else 0
    plain = inspect.unwrap(function)
    parameters = list(inspect.signature(plain).parameters.values())
    signature = inspect.Signature(parameters[1 if jinja.passes_context(plain) else 0 :])
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


_DICT_ATTRIBUTES = frozenset(dir(dict))


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
        if type(obj) is dict and attribute not in _DICT_ATTRIBUTES:
            # What the sandbox would do, without its failed attribute lookup first (an exception
            # raised and caught for every ``spec.image``): a plain dict's attributes are its type's.
            try:
                return obj[attribute]
            except KeyError:
                return self.undefined(obj=obj, name=attribute)
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


__all__ = [
    "CURRENT",
    "DEFAULT_LIMITS",
    "FILTERS",
    "BoundedSandbox",
    "Budget",
    "BudgetError",
    "Limits",
    "NotAllowed",
    "OverBudget",
    "binop",
    "bounded_filters",
    "call",
    "current",
    "format_size",
    "percent_size",
    "rough_len",
    "running",
]
