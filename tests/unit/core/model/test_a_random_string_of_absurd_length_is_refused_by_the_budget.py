"""A random string longer than the budget's characters is refused before it is built, at its line."""

from __future__ import annotations

import time

import pytest

from engine.core.model.errors import KindError, RenderError
from tests.unit._library import render_data, rule


def test_a_template_asking_for_a_huge_random_string_fails_at_its_line() -> None:
    started = time.thread_time()  # its own CPU time: the same beside other work
    with pytest.raises(RenderError, match="random_string would build 1000000000000 characters") as caught:
        render_data("  a: b\n  c: d\n  pw: {{ random_string(spec.n, 's') }}\n", {"n": 10**12})
    assert caught.value.line == 8
    assert time.thread_time() - started < 1


@pytest.mark.parametrize("length", [0, -1, "8", True])
def test_a_length_that_is_no_positive_whole_number_is_refused(length: object) -> None:
    with pytest.raises(KindError, match="random_string: the length must be a whole number"):
        rule("random_string(spec.n, 's')", {"n": length})
