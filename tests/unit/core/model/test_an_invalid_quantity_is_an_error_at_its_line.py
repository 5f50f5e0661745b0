"""A text that is no quantity, or a quantity compared with a string, is an error at the template's
line that says what is wrong, not a comparison of text."""

from __future__ import annotations

import pytest

from engine.core.model.errors import KindError, RenderError
from tests.unit._library import render_data, rule


@pytest.mark.parametrize("written", ["5GB", "1.2.3", "Mi", "", "1e99", "10E", "9" * 100])
def test_a_template_reading_an_invalid_quantity_fails_at_its_line(written: str) -> None:
    with pytest.raises(RenderError, match=r"quantity: .* (is not a Kubernetes quantity|is beyond)") as caught:
        render_data("  a: b\n  memory: {{ spec.memory | quantity }}\n", {"memory": written})
    assert caught.value.line == 7


def test_a_quantity_compared_with_a_string_says_to_parse_it() -> None:
    with pytest.raises(KindError, match=r"write '1Gi' \| quantity") as caught:
        rule("spec.memory | quantity < '1Gi'", {"memory": "500Mi"})
    assert caught.value.line == 9
