"""Whatever a CR value holds, it lands as one value where the template put it, unchanged."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core.templating import rendering
from tests.unit import _kinds

# Fragments that would each change a YAML document's structure if pasted into its text.
TRICKY = [
    "\n",
    "\r\n",
    "\n---\n",
    "\n...\n",
    "---",
    '"',
    "'",
    "\\",
    ": ",
    ":",
    "- ",
    "? ",
    "{",
    "}",
    "[",
    "]",
    ",",
    "&a ",
    "*a",
    "!!python/object/apply:os.system ['x']",
    "!tag ",
    "#",
    " # c",
    "|",
    ">",
    "%YAML 1.1",
    "<<: ",
    "\t",
    "\x00",
    "\u2028",
    "\ufeff",
    "é",
    "🙂",
    "{{ spec.v }}",
    "{% raw %}",
    "stencilv00x0z",
    "null",
    "true",
    "1e3",
    "0x1f",
    "~",
    "",
    " ",
    "  indented\n  block",
    "key: value\nother: 1",
    "a: [b, {c: d}]",
]

strings = st.one_of(
    st.text(),
    st.sampled_from(TRICKY),
    st.lists(st.one_of(st.sampled_from(TRICKY), st.text(max_size=3)), max_size=8).map("".join),
)
json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),  # JSON numbers the API server holds
    st.floats(allow_nan=False, allow_infinity=False),
    strings,
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(strings, inner, max_size=4)),
    max_leaves=12,
)


def text(value: Any) -> str:
    """A value's string form inside a longer string: itself for strings, compact JSON otherwise."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, separators=(",", ":"))


# position name -> (the lines of ``data:`` holding the interpolation, what ``data`` must become)
POSITIONS: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "whole value": ("  v: {{ spec.v }}\n", lambda v: {"v": v}),
    "whole value, indented in a block list": (
        "  v:\n    - {{ spec.v }}\n    - b\n",
        lambda v: {"v": [v, "b"]},
    ),
    "flow sequence item": ("  v: [{{ spec.v }}, b]\n", lambda v: {"v": [v, "b"]}),
    "flow mapping value": ("  v: {k: {{ spec.v }}}\n", lambda v: {"v": {"k": v}}),
    "double-quoted, alone": ('  v: "{{ spec.v }}"\n', lambda v: {"v": text(v)}),
    "double-quoted, among text": ('  v: "a {{ spec.v }} b"\n', lambda v: {"v": f"a {text(v)} b"}),
    "single-quoted, among text": ("  v: 'a {{ spec.v }} b'\n", lambda v: {"v": f"a {text(v)} b"}),
    "plain, among text": ("  v: pre-{{ spec.v }}-post\n", lambda v: {"v": f"pre-{text(v)}-post"}),
    "key": ("  {{ spec.v }}: x\n", lambda v: {text(v): "x"}),
    "key, among text": ("  k-{{ spec.v }}: x\n", lambda v: {f"k-{text(v)}": "x"}),
    "literal block scalar": (
        "  v: |\n    first\n    {{ spec.v }}\n    last\n",
        lambda v: {"v": f"first\n{text(v)}\nlast\n"},
    ),
    "folded block scalar": ("  v: >-\n    {{ spec.v }}\n", lambda v: {"v": text(v)}),
}

# The same template text before and after the interpolated section, so any leak would show.
TEMPLATE = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n{body}trailer: end\n"


def check(position: str, value: Any) -> None:
    """Render ``value`` at ``position``: one ConfigMap, its structure intact, the value in place."""
    body, expected = POSITIONS[position]
    kind = _kinds.kind(TEMPLATE.format(body=body))
    [child] = rendering.render(kind, _kinds.parent({"v": value}), [])
    assert set(child) == {"apiVersion", "kind", "metadata", "data", "trailer"}
    assert child["metadata"]["name"] == "cm"
    assert child["data"] == expected(value)
    assert child["trailer"] == "end"


@pytest.mark.parametrize("position", POSITIONS)
@settings(max_examples=150)
@given(value=strings)
def test_a_string_value_round_trips_in_every_position(position: str, value: str) -> None:
    check(position, value)


@pytest.mark.parametrize("position", POSITIONS)
@settings(max_examples=75)
@given(value=json_values)
def test_any_json_value_round_trips_in_every_position(position: str, value: Any) -> None:
    check(position, value)


@settings(max_examples=100)
@given(value=strings)
def test_a_value_inside_a_comment_changes_nothing(value: str) -> None:
    kind = _kinds.kind(TEMPLATE.format(body="  v: 1  # {{ spec.v }}\n"))
    [child] = rendering.render(kind, _kinds.parent({"v": value}), [])
    assert child["data"] == {"v": 1}
