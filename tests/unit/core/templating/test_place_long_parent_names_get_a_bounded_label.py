"""A parent's name may be 253 characters and a label value only 63: longer names are labelled
in a bounded, still unique form, and written in full in an annotation."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from engine.core.model.children import placement
from engine.core.templating import rendering
from tests.unit import _kinds

LABEL_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")
# DNS-1123 subdomains, as the API server allows parent names.
SEGMENT = st.from_regex(r"[a-z0-9]([-a-z0-9]{0,20}[a-z0-9])?", fullmatch=True)
NAMES = st.lists(SEGMENT, min_size=1, max_size=12).map(".".join).filter(lambda n: len(n) <= 253)


@given(NAMES)
def test_every_parent_name_gives_a_valid_label_value(name: str) -> None:
    value = placement.label_value(name)
    assert len(value) <= 63
    assert LABEL_VALUE.fullmatch(value)
    assert (value == name) == (len(name) <= 63)


@given(NAMES, NAMES)
def test_distinct_long_names_get_distinct_labels(first: str, second: str) -> None:
    long_first, long_second = ("x" * 60) + first, ("x" * 60) + second
    if long_first != long_second:
        assert placement.label_value(long_first) != placement.label_value(long_second)


def test_a_long_name_is_kept_in_full_in_an_annotation() -> None:
    name = "a" * 64
    [child] = rendering.render(_kinds.kind(_kinds.configmap("  k: v\n")), _kinds.parent(name=name), [])
    metadata = child["metadata"]
    assert len(metadata["labels"][placement.PARENT_NAME_LABEL]) <= 63
    assert metadata["annotations"] == {placement.PARENT_NAME_LABEL: name}


def test_a_short_name_is_its_own_label_and_adds_no_annotation() -> None:
    [child] = rendering.render(_kinds.kind(_kinds.configmap("  k: v\n")), _kinds.parent(name="web"), [])
    assert child["metadata"]["labels"][placement.PARENT_NAME_LABEL] == "web"
    assert "annotations" not in child["metadata"]
