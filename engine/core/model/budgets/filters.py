"""Filters: which of Jinja's filters a template or rule may use, each with the check of what it would build.

``FILTERS`` is the allowlist of filters by name; a filter that can outgrow its input (``batch``,
``slice``, ``center``, ``indent``, ``join``, ``replace``, ``wordwrap``, ``format``) has a check
that charges the running ``Budget`` its result's size before it runs, and one with a parameter
that costs time rather than room (``tojson``'s indent, ``round``'s precision, ``sum``'s start)
has one that refuses it.  Each check reads the filter's arguments already bound to its
signature; ``budgets.bounded_filters`` binds them and wraps the filters.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable

from engine.core.model.budgets.limits import Budget, NotAllowed, OverBudget
from engine.core.model.budgets.sizes import as_int, method_size, percent_size, rough_len


def _batch(bound: inspect.BoundArguments, budget: Budget) -> None:
    # A last batch is filled up to ``linecount`` items: ``[1] | batch(10**9, 0)``.
    if bound.arguments.get("fill_with") is not None and as_int(bound.arguments["linecount"]) is not None:
        budget.charge(bound.arguments["linecount"], "batch")


def _slice(bound: inspect.BoundArguments, budget: Budget) -> None:
    slices = bound.arguments["slices"]
    if as_int(slices) is not None:  # one list per slice, however short the input
        budget.charge(slices, "slice")


def _center(bound: inspect.BoundArguments, budget: Budget) -> None:
    width = bound.arguments.get("width", 80)
    if as_int(width) is not None:
        budget.charge(max(width, len(str(bound.arguments["value"]))), "center")


def _indent(bound: inspect.BoundArguments, budget: Budget) -> None:
    text, width = str(bound.arguments["s"]), bound.arguments.get("width", 4)
    pad = len(width) if isinstance(width, str) else width if as_int(width) is not None else 0
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
    size = method_size(str(arguments["s"]), "replace", args, {})
    budget.charge(size or 0, "replace")


def _wordwrap(bound: inspect.BoundArguments, budget: Budget) -> None:
    text, width = str(bound.arguments["s"]), bound.arguments.get("width", 79)
    if as_int(width) is None or width <= 0:
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
    if indent is not None and not (as_int(indent) is not None and 0 <= indent <= _MAX_JSON_INDENT):
        raise OverBudget(f"tojson: indent must be between 0 and {_MAX_JSON_INDENT}, not {indent!r}")


def _round(bound: inspect.BoundArguments, budget: Budget) -> None:
    precision = bound.arguments.get("precision", 0)
    if as_int(precision) is not None and abs(precision) > _MAX_ROUND_PRECISION:
        raise OverBudget(f"round: precision must be at most {_MAX_ROUND_PRECISION}, not {precision}")


def _sum(bound: inspect.BoundArguments, budget: Budget) -> None:
    start = bound.arguments.get("start", 0)
    # Adding lists or strings one to the next copies the total each time: time grows as its square.
    if not isinstance(start, int | float):
        raise NotAllowed("sum adds numbers: its start must be a number")


Check = Callable[[inspect.BoundArguments, Budget], None]

# Jinja's filters a template or rule may use, each with the check of what it would build.
# Left out: pprint and urlize (their output has no bound worth keeping), striptags (its
# pattern backtracks: time grows as the square of its input), random and lipsum.
FILTERS: dict[str, Check | None] = {
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
