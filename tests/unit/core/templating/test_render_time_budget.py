"""A template that runs too long is stopped at its time budget, even in a loop that prints nothing."""

from __future__ import annotations

import time

import pytest

from engine.core.model.errors import RenderError
from engine.core.templating import rendering, sandbox
from tests.unit import _kinds

LIMITS = sandbox.Limits(seconds=0.2)

SILENT_LOOPS = "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}\n"
LOOPS_OVER_A_VALUE = (
    "{% set s = spec.text * 1000 %}{% for a in s %}{% for b in s %}{% endfor %}{% endfor %}\n"
)
RECURSION = "{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}\n"


@pytest.mark.parametrize(
    "template", [SILENT_LOOPS, LOOPS_OVER_A_VALUE], ids=["range", "characters of a value"]
)
def test_a_loop_past_the_budget_is_stopped_and_located(template: str) -> None:
    start = time.thread_time()  # its own CPU time: the same beside other work
    with pytest.raises(RenderError, match=r"took longer than 0\.2s") as caught:
        rendering.render(_kinds.kind(template), _kinds.parent({"text": "abcdefghij"}), [], limits=LIMITS)
    assert time.thread_time() - start < 2
    assert (caught.value.file, caught.value.line) == ("templates/web/t0.yaml", 1)


def test_endless_recursion_is_an_error_not_a_crash() -> None:
    with pytest.raises(RenderError) as caught:
        rendering.render(_kinds.kind(RECURSION), _kinds.parent(), [], limits=LIMITS)
    assert caught.value.file == "templates/web/t0.yaml"


def test_a_huge_power_is_refused_before_it_is_computed() -> None:
    with pytest.raises(RenderError, match=r"`\*\*` would make an integer"):
        rendering.render(
            _kinds.kind("{% set x = 10 ** spec.n %}\n"), _kinds.parent({"n": 10**9}), [], limits=LIMITS
        )
