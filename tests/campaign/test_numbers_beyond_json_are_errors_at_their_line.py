"""Class 1: a number JSON cannot carry into the API server exactly (an integer beyond int64, a NaN, an
infinity) or a scalar its tag cannot build (``!!float abc``) is an error at its file, line and field;
every other number loads as the number it says."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.core.model.errors import StencilError
from engine.core.model.language import documents
from tests.campaign import _hostile

# Each text with the number it spells: integers of any size, and the spellings YAML 1.1 reads as
# integers (hex, octal, binary, underscores).  ``"9" * digits`` is ``10 ** digits - 1``, worked out
# without turning thousands of digits into an int.
INTEGERS = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70).map(lambda n: (str(n), n)),
    st.integers(min_value=1, max_value=6000).map(lambda digits: ("9" * digits, 10**digits - 1)),
    st.integers(min_value=0, max_value=2**66).map(lambda n: (hex(n), n)),
    st.integers(min_value=0, max_value=2**66).map(lambda n: ("0b" + format(n, "b"), n)),
    st.integers(min_value=0, max_value=2**66).map(lambda n: (f"{n:_}", n)),
)
# An exponent with no sign is text to YAML 1.1: the last two spell strings.
FLOATS = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False)
    .map(lambda f: (repr(f), f))
    .filter(lambda t: "." in t[0]),
    st.sampled_from(
        [
            ("3.141592653589793", math.pi),
            ("-1.7976931348623157e+308", -sys.float_info.max),
            (".nan", math.nan),
            (".NaN", math.nan),
            (".inf", math.inf),
            ("-.inf", -math.inf),
            ("+.Inf", math.inf),
            ("!!float 1e400", math.inf),
            ("1.0e999", "1.0e999"),
            ("-1.5e400", "-1.5e400"),
        ]
    ),
)
MALFORMED = [
    "!!float abc",
    "!!int twelve",
    "!!int 1.5",
    "!!bool maybe",
    "!!float ''",
    "!!int ''",
    "!!float [1]",
    "!!int {a: 1}",
    "!!str {a: 1}",
    "!!null [1]",
    "!!map abc",
    "!!seq abc",
    "!!binary aGVsbG8=",
    "!!timestamp 2024-01-01",
    "!!python/object:os.system ls",
    "!custom 1",
]


def json_can_hold(spelt: int | float | str) -> bool:
    """Whether the API server can keep ``spelt`` exactly: an int64, a finite float, or text."""
    if isinstance(spelt, int):
        return documents.INT64_MIN <= spelt <= documents.INT64_MAX
    return not isinstance(spelt, float) or math.isfinite(spelt)


def loads_as_spelt_or_refuses_at_its_field(file: Path, spelt: int | float | str) -> None:
    """The file's ``spec.value`` loads as ``spelt``, the value its text spells, type, sign and all,
    when JSON can hold it; when it cannot, the error names the file, line and field."""
    try:
        with _hostile.within():
            loaded = documents.load_all(file, StencilError)
    except StencilError as error:
        assert (error.file, error.line, error.field) == (str(file), 6, "spec.value"), str(error)
        assert not json_can_hold(spelt), f"{spelt!r} was refused: {error}"
        return
    value = loaded[0]["spec"]["value"]
    assert json_can_hold(spelt), f"{spelt!r} loaded as {value!r}"
    assert type(value) is type(spelt) and value == spelt, f"{spelt!r} loaded as {value!r}"
    if isinstance(spelt, float):
        assert math.copysign(1.0, value) == math.copysign(1.0, spelt), f"{spelt!r} loaded as {value!r}"


@settings(max_examples=80, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=st.one_of(INTEGERS, FLOATS))
def test_a_number_in_a_cr_loads_exactly_or_is_refused_at_its_field(
    tmp_path: Path, case: tuple[str, int | float | str]
) -> None:
    text, spelt = case
    lab = _hostile.Lab(tmp_path)

    loads_as_spelt_or_refuses_at_its_field(lab.cr(f"value: {text}"), spelt)


@pytest.mark.parametrize("text", MALFORMED)
def test_a_scalar_its_tag_cannot_build_is_refused_at_its_field(tmp_path: Path, text: str) -> None:
    file = _hostile.Lab(tmp_path).cr(f"value: {text}")

    with pytest.raises(StencilError) as caught:
        documents.load_all(file, StencilError)

    assert (caught.value.file, caught.value.line) == (str(file), 6)


@settings(max_examples=30, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.one_of(INTEGERS.map(lambda t: t[0]), FLOATS.map(lambda t: t[0]), st.sampled_from(MALFORMED)))
def test_stencil_render_of_such_a_cr_renders_or_fails_in_one_located_line(tmp_path: Path, text: str) -> None:
    lab = _hostile.lab(tmp_path)

    _hostile.assert_clean(lab.render(lab.cr(f"value: {text}\nreplicas: {text}")))


@pytest.mark.parametrize(
    "expression",
    [
        "10 ** 5000",
        "2 ** 64",
        "9 * 10 ** 30",
        "-(2 ** 63) - 1",
        "'9' * 5000 | int",
        "1e308 * 10",
        "(1e308 * 10) - (1e308 * 10)",
        "'nan' | float",
        "'inf' | float",
        "2 ** 0.5",
        "1 / 3",
        "range(10) | sum",
    ],
)
def test_a_template_computing_a_number_renders_or_fails_in_one_located_line(
    tmp_path: Path, expression: str
) -> None:
    template = (
        _hostile.TEMPLATE + f"  number: '{{{{ {expression} }}}}'\n  raw: {{{{ ({expression}) | string }}}}\n"
    )
    lab = _hostile.lab(tmp_path, template=template)

    _hostile.assert_clean(lab.render(lab.cr("value: 1")))
