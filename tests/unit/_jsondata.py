"""Generated JSON data, as YAML writers and readers are given it: scalars of every JSON type (and
the strings that mean another type to YAML), nested in lists and mappings."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st


def data(
    strings: st.SearchStrategy[str], keys: st.SearchStrategy[Any], leaves: int
) -> st.SearchStrategy[Any]:
    """Nested lists and mappings (their keys drawn from ``keys``) of ``strings``, integers within
    int64, finite floats, booleans and nulls: at most ``leaves`` scalars."""
    scalars = st.one_of(
        strings,
        st.integers(min_value=-(2**63), max_value=2**63 - 1),
        st.floats(allow_nan=False, allow_infinity=False),
        st.booleans(),
        st.none(),
    )
    return st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=5),
        max_leaves=leaves,
    )
