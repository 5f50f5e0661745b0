"""The metric names a PromQL expression reads, and the families a Prometheus exposition
exports: enough of PromQL's grammar to tell a series' name from a function, an aggregation,
a keyword, a label name or a Grafana variable, for the test that holds the chart's dashboard
to the series the engine exports."""

from __future__ import annotations

import re

# Words of PromQL that are not series: aggregation modifiers, vector matching, set operators.
KEYWORDS = frozenset(
    {"by", "without", "on", "ignoring", "group_left", "group_right", "bool"}
    | {"and", "or", "unless", "offset", "atan2", "inf", "nan"}
)
HISTOGRAM_SUFFIXES = ("_bucket", "_sum", "_count")

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|`[^`]*`')
_MATCHERS = re.compile(r"\{[^{}]*\}")  # after strings are gone, a selector's braces hold only labels
_RANGE = re.compile(r"\[[^\]]*\]")  # [5m], [$__rate_interval], [1h:5m]
_LABEL_LIST = re.compile(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^()]*\)")
_VARIABLE = re.compile(r"\$\{[^}]*\}|\$\w+")
_TOKEN = re.compile(r"[A-Za-z_:][A-Za-z0-9_:]*(?=\s*(\()?)")
_NUMBER_WORD = re.compile(r"\b\d[\w.]*")  # 0.99, 1e3, 5m: never the start of a name


def metric_names(expression: str) -> set[str]:
    """Every series name ``expression`` selects (``name{...}`` or a bare ``name``)."""
    text = _STRING.sub('""', expression)
    text = _VARIABLE.sub("1", text)
    text = _MATCHERS.sub("", text)
    text = _RANGE.sub("", text)
    text = _LABEL_LIST.sub(" ", text)
    text = _NUMBER_WORD.sub(" ", text)
    names = set()
    for match in _TOKEN.finditer(text):
        word, call = match.group(0), match.group(1)
        if call or word in KEYWORDS:
            continue  # a function or an aggregation, or a keyword
        names.add(word)
    return names


def family(name: str) -> str:
    """The family a series belongs to: a histogram's ``_bucket``/``_sum``/``_count`` are its own."""
    for suffix in HISTOGRAM_SUFFIXES:
        if name.endswith(suffix):
            return name.removesuffix(suffix)
    return name


def label_values_metric(query: str) -> str | None:
    """The series of a Grafana ``label_values(series, label)`` variable query, if it is one."""
    found = re.fullmatch(r"\s*label_values\(\s*(.*?)\s*,\s*\w+\s*\)\s*", query)
    return found.group(1) if found else None


def exported(exposition: str) -> dict[str, str]:
    """Every family an exposition declares (``# TYPE name type``), by name: its type."""
    found = {}
    for line in exposition.splitlines():
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(" ", 3)
            found[name] = kind
    return found
