"""A library function given a missing value gives it back: a status rule reads it as none, and a
template says which field is not set, rather than a parse error about an undefined."""

from __future__ import annotations

import pytest

from engine.core.model.errors import RenderError
from tests.unit._library import render_data, rule


@pytest.mark.parametrize(
    "text",
    [
        "child('ConfigMap', 'absent').data.config | fromyaml",
        "(spec.missing | quantity) > (spec.other | quantity)",
        "random_string(8, spec.missing)",
        "spec.missing | digest",
    ],
)
def test_a_rule_reading_missing_data_through_the_library_is_none(text: str) -> None:
    assert rule(text, {}) is None


def test_a_template_names_the_field_that_is_not_set() -> None:
    with pytest.raises(RenderError, match="not set in the parent") as caught:
        render_data("  a: b\n  c: {{ spec.settings | fromyaml }}\n", {})
    assert (caught.value.field, caught.value.line) == ("spec.settings", 7)
