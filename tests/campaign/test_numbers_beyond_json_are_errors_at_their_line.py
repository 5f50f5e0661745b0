"""Class 1: a number JSON cannot carry into the API server exactly (an integer beyond int64, a NaN, an
infinity) or a scalar its tag cannot build (``!!float abc``) is an error at its file, line and field;
every other number loads as the number it says."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.core import documents
from engine.core.errors import StencilError
from tests.campaign import _hostile

# Integers of any size, and the spellings YAML 1.1 reads as integers (hex, octal, binary, underscores).
INTEGERS = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
    st.integers(min_value=1, max_value=6000).map(lambda digits: "9" * digits),
    st.integers(min_value=0, max_value=2**66).map(hex),
    st.integers(min_value=0, max_value=2**66).map(lambda n: "0b" + format(n, "b")),
    st.integers(min_value=0, max_value=2**66).map(lambda n: f"{n:_}"),
)
FLOATS = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False).map(repr).filter(lambda text: "." in text),
    st.sampled_from([".nan", ".NaN", ".inf", "-.inf", "+.Inf", "1.0e999", "-1.5e400", "!!float 1e400"]),
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


def loads_or_refuses_at_its_field(file: Path) -> None:
    """The file's ``spec.value`` loads as a JSON number, or the error names the file, line and field."""
    try:
        with _hostile.within():
            loaded = documents.load_all(file, StencilError)
    except StencilError as error:
        assert (error.file, error.line, error.field) == (str(file), 6, "spec.value"), str(error)
        return
    value = loaded[0]["spec"]["value"]
    if isinstance(value, int) and not isinstance(value, bool):
        assert documents.INT64_MIN <= value <= documents.INT64_MAX
    elif isinstance(value, float):
        assert math.isfinite(value)


@settings(max_examples=80, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.one_of(INTEGERS, FLOATS))
def test_a_number_in_a_cr_loads_exactly_or_is_refused_at_its_field(tmp_path: Path, text: str) -> None:
    lab = _hostile.Lab(tmp_path)

    loads_or_refuses_at_its_field(lab.cr(f"value: {text}"))


@pytest.mark.parametrize("text", MALFORMED)
def test_a_scalar_its_tag_cannot_build_is_refused_at_its_field(tmp_path: Path, text: str) -> None:
    file = _hostile.Lab(tmp_path).cr(f"value: {text}")

    with pytest.raises(StencilError) as caught:
        documents.load_all(file, StencilError)

    assert (caught.value.file, caught.value.line) == (str(file), 6)


@settings(max_examples=30, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.one_of(INTEGERS, FLOATS, st.sampled_from(MALFORMED)))
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
