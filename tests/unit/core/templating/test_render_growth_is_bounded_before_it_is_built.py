"""Every operation that can make a value much larger than its inputs is refused *before* it runs.

Charging the output budget once a value is built is too late: ``'x'.ljust(10**9)``
has taken a gigabyte by then.  Each growing string method, ``%``, ``format`` and
filter has its result's size bounded first; the same operations with small
sizes give what Python and Jinja give.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core.model.errors import RenderError
from engine.core.templating import rendering, sandbox
from tests.unit import _kinds

LIMITS = sandbox.Limits(output_chars=10_000)

# Each takes a size N through spec.n, so the value itself comes from the CR.
GROWING = [
    "'x'.ljust(spec.n)",
    "'x'.rjust(spec.n)",
    "'x'.center(spec.n)",
    "'7'.zfill(spec.n)",
    "'a\\tb'.expandtabs(spec.n)",
    "'aaaa'.replace('a', 'b' * (spec.n // 10000 + 1) * 10000)",
    "'{:>{w}}'.format(1, w=spec.n)",
    "('{:>' ~ spec.n ~ '}').format(1)",
    "('{x:.' ~ spec.n ~ 'f}').format_map({'x': 1.5})",
    "('%' ~ spec.n ~ 'd') % 1",
    "'%*d' % (spec.n, 1)",
    "'x' | indent(spec.n)",
    "'x' | center(spec.n)",
    "('%' ~ spec.n ~ 's') | format('y')",
    "['a', 'b'] | join('-' * (spec.n // 10000 + 1) * 10000)",
    "('-' * 5000).join(['a'] * (spec.n // 10**12 + 3))",
    "'abc' | replace('', '-' * (spec.n // 10000 + 1) * 10000)",
    "'a b c d' | wordwrap(1, wrapstring='-' * (spec.n // 10000 + 1) * 10000)",
]


def render(expression: str, n: int) -> str:
    template = _kinds.configmap(f"  v: {{{{ ({expression})[:20] | string }}}}\n")
    [configmap] = rendering.render(_kinds.kind(template), _kinds.parent({"n": n}), [], limits=LIMITS)
    return str(configmap["data"]["v"])


@pytest.mark.parametrize("expression", GROWING)
@settings(max_examples=15, deadline=None)
@given(n=st.integers(min_value=20_000, max_value=10**12))
def test_a_result_past_the_budget_is_refused_before_it_is_built(expression: str, n: int) -> None:
    with pytest.raises(RenderError, match=r"would build \d+ characters"):
        render(expression, n)


SMALL = {
    "'x'.ljust(spec.n)": lambda n: "x".ljust(n),
    "'7'.zfill(spec.n)": lambda n: "7".zfill(n),
    "'{:>{w}}'.format(1, w=spec.n)": lambda n: "{:>{w}}".format(1, w=n),
    "('%' ~ spec.n ~ 'd') % 1": lambda n: f"%{n}d" % 1,
    "'x' | center(spec.n)": lambda n: "x".center(n),
}


@pytest.mark.parametrize("expression", SMALL)
@given(n=st.integers(min_value=0, max_value=200))
def test_small_sizes_give_what_python_gives(expression: str, n: int) -> None:
    assert render(expression, n) == SMALL[expression](n)[:20]


def test_tojson_indent_is_bounded() -> None:
    with pytest.raises(RenderError, match="indent must be between 0 and 16"):
        render("spec | tojson(indent=spec.n)", 1_000_000)
