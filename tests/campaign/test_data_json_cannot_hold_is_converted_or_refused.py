"""Class 5: data that is not JSON never gets through as it is.  In a YAML file, a boolean or integer
key becomes the string kubectl makes of it, and a null or fractional key, a NaN or an infinity is an
error at its line; a template's keys of mixed types neither crash rendering nor the content hash."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.core.decisions.plans import planning
from engine.core.model.errors import StencilError
from engine.core.model.language import documents
from tests.campaign import _hostile

# Keys as YAML spells them: what resolves to a bool, an int, a float or null, and plain strings.
KEYS = st.one_of(
    st.sampled_from(["true", "False", "yes", "NO", "on", "Off", "y", "n", "~", "null", "Null", "", "''"]),
    st.integers(min_value=-(2**64), max_value=2**64).map(str),
    st.sampled_from(["0x1F", "017", "0o17", "0b101", "1_000", "1.5", "-.5", ".inf", ".nan", "1e3", "1.0e3"]),
    st.text(alphabet="abcxyz-_.", min_size=1, max_size=8),
)


@settings(max_examples=80, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(keys=st.lists(KEYS, min_size=1, max_size=4, unique=True))
def test_every_key_loads_as_a_string_or_is_refused_at_its_line(tmp_path: Path, keys: list[str]) -> None:
    file = _hostile.Lab(tmp_path).cr(
        "value:\n" + "".join(f"  {key}: v{index}\n" for index, key in enumerate(keys))
    )

    try:
        loaded = documents.load_all(file, StencilError)
    except StencilError as error:
        assert error.file == str(file) and error.line is not None and 7 <= error.line <= 6 + len(keys)
        return
    value = loaded[0]["spec"]["value"]
    assert all(isinstance(key, str) for key in value)
    assert len(value) == len(keys)


@pytest.mark.parametrize(
    ("key", "expected"),
    [("1", "1"), ("-7", "-7"), ("true", "true"), ("yes", "true"), ("off", "false"), ("0x10", "16")],
)
def test_a_boolean_or_integer_key_becomes_the_string_kubectl_makes(
    tmp_path: Path, key: str, expected: str
) -> None:
    file = _hostile.Lab(tmp_path).cr(f"value:\n  {key}: v")

    assert documents.load_all(file, StencilError)[0]["spec"]["value"] == {expected: "v"}


@pytest.mark.parametrize("key", ["~", "null", "1.5", ".inf", ".nan", "[a]", "{a: 1}", "? [a, b]"])
def test_a_key_json_has_no_string_for_is_refused_at_its_line(tmp_path: Path, key: str) -> None:
    spec = f"value:\n  {key}: v" if not key.startswith("?") else f"value:\n  {key}\n  : v"
    lab = _hostile.lab(tmp_path)

    result = lab.render(lab.cr(spec))

    assert result.exit_code == 1
    _hostile.assert_clean(result)
    assert f"{tmp_path / 'cr.yaml'}:7: " in result.output


@pytest.mark.parametrize("value", [".nan", ".NaN", ".inf", "-.Inf", "[1, .nan]", "{a: .inf}"])
def test_a_nan_or_infinity_in_a_cr_is_refused_at_its_field(tmp_path: Path, value: str) -> None:
    lab = _hostile.lab(tmp_path)

    result = lab.render(lab.cr(f"value: {value}"))

    assert result.exit_code == 1
    _hostile.assert_clean(result)
    assert f"{tmp_path / 'cr.yaml'}:6: spec.value" in result.output


MIXED = [
    "{1: 'a', 'b': 'c'}",
    "{true: 1, 'x': 2}",
    "{none: 1, 'x': 2}",
    "{1.5: 1, 2: 2, 'c': 3}",
    "{1: 'a', '1': 'b'}",
    "{(1, 2): 'a'}",
    "{'a': {2: {'b': 3}}}",
    "[{1: 2}, {'x': 'y'}]",
]


@pytest.mark.parametrize("value", MIXED)
def test_keys_of_mixed_types_from_a_template_neither_crash_rendering_nor_the_hash(
    tmp_path: Path, value: str
) -> None:
    template = _hostile.TEMPLATE.replace("data:\n", f"mixed: {{{{ {value} }}}}\ndata:\n")
    lab = _hostile.lab(tmp_path, template=template)

    result = lab.render(lab.cr("value: 1"))

    _hostile.assert_clean(result)
    for child in yaml.safe_load_all(result.output) if result.exit_code == 0 else ():
        assert len(planning.content_hash(child)) == 32


@settings(max_examples=40)
@given(
    data=st.recursive(
        st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=5)),
        lambda inner: st.one_of(
            st.lists(inner, max_size=3),
            st.dictionaries(
                st.one_of(st.text(max_size=3), st.integers(), st.booleans(), st.none()), inner, max_size=3
            ),
        ),
        max_leaves=12,
    )
)
def test_the_content_hash_of_any_json_like_data_is_computed(data: object) -> None:
    child = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": data}

    assert len(planning.content_hash(child)) == 32
