"""Class 2: nesting deeper than the limits is refused at its line before it costs anything: YAML
deeper than ``documents.MAX_DEPTH`` (a CR, a CRD, a kind.yaml or a template's output) and status rules
deeper than ``expressions.MAX_EXPRESSION_NESTING``; anything within them loads."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.core.model.errors import StencilError
from engine.core.model.language import documents
from tests.campaign import _hostile


def nested(style: str, depth: int) -> str:
    """A YAML value ``depth`` collections deep, in one of the ways YAML nests."""
    if style == "flow-sequence":
        return "[" * depth + "]" * depth
    if style == "flow-mapping":
        return "{a: " * depth + "1" + "}" * depth
    if style == "block-sequence":  # - - - x: one line, one level per dash
        return "\n" + "  " + "- " * depth + "x"
    assert style == "block-mapping"
    return "".join("\n" + "  " * (level + 1) + "a:" for level in range(depth)) + " 1"


STYLES = st.sampled_from(["flow-sequence", "flow-mapping", "block-sequence", "block-mapping"])
# Around the limit, and far beyond it; block mappings cost their square in indentation, so stay small.
DEPTHS = st.one_of(
    st.integers(min_value=1, max_value=documents.MAX_DEPTH + 5),
    st.integers(min_value=documents.MAX_DEPTH, max_value=300_000),
)


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(style=STYLES, depth=DEPTHS)
def test_a_cr_nested_beyond_the_limit_is_refused_at_its_line(tmp_path: Path, style: str, depth: int) -> None:
    if style == "block-mapping":
        depth = min(depth, 1_000)  # its indentation grows with the square of the depth
    file = _hostile.Lab(tmp_path).cr(f"value: {nested(style, depth)}")
    levels = depth + 2  # the document and spec are two more

    try:
        with _hostile.within():
            documents.load_all(file, StencilError)
    except StencilError as error:
        assert levels > documents.MAX_DEPTH, str(error)
        assert error.file == str(file) and error.line is not None and error.line >= 6
        assert f"more than {documents.MAX_DEPTH} levels" in error.message
    else:
        assert levels <= documents.MAX_DEPTH


@pytest.mark.parametrize("depth", [documents.MAX_DEPTH - 2, 1_000, 200_000])
@pytest.mark.parametrize("style", ["flow-sequence", "flow-mapping", "block-sequence"])
def test_stencil_render_of_a_deep_cr_renders_or_fails_in_one_located_line(
    tmp_path: Path, style: str, depth: int
) -> None:
    lab = _hostile.lab(tmp_path)

    _hostile.assert_clean(lab.render(lab.cr(f"value: {nested(style, depth)}")))


@pytest.mark.parametrize(
    "data",
    [
        "  deep: " + "[" * 3000 + "]" * 3000 + "\n",
        "  deep: " + "{a: " * 3000 + "1" + "}" * 3000 + "\n",
        "  deep: " + "- " * 3000 + "x\n",
        "  deep: {% for i in range(3000) %}[{% endfor %}{% for i in range(3000) %}]{% endfor %}\n",
        "  deep: {{ '[' * 3000 }}{{ ']' * 3000 }}\n",
    ],
)
def test_a_template_writing_deep_yaml_fails_at_its_template_line(tmp_path: Path, data: str) -> None:
    lab = _hostile.lab(tmp_path, template=_hostile.TEMPLATE.replace("data:\n", "data:\n" + data))

    result = lab.render(lab.cr("value: 1"))

    _hostile.assert_clean(result)


def test_a_template_value_nested_deeper_than_the_limit_renders_or_fails_in_one_line(tmp_path: Path) -> None:
    # A value that is deep data (not text): a CR cannot hold one, but a template can build it.
    template = _hostile.TEMPLATE + (
        "  deep: '{% set ns = namespace(v=1) %}{% for i in range(3000) %}{% set ns.v = [ns.v] %}"
        "{% endfor %}{{ ns.v | tojson }}'\n"
    )
    lab = _hostile.lab(tmp_path, template=template)

    _hostile.assert_clean(lab.render(lab.cr("value: 1")))


RULES = [
    "(" * 200_000 + "1" + ")" * 200_000,
    "(" * 300 + "1" + ")" * 300,
    "[" * 500 + "]" * 500,
    "not " * 1000 + "1",
    "-" * 4000 + "1",
    "+".join(["1"] * 2000),
    "spec" + ".a" * 2000,
    "spec" + "|string" * 580,
    "spec" + "()" * 2000,
    "spec" + "[0]" * 1300,
    " if 1 else ".join(["1"] * 300),
    "x" * 5000,
]


@pytest.mark.parametrize("rule", RULES, ids=[f"rule{index}" for index in range(len(RULES))])
def test_a_status_rule_nested_too_deeply_fails_at_its_line(tmp_path: Path, rule: str) -> None:
    kind_yaml = _hostile.KIND_YAML + f"status:\n  fields:\n    deep: {rule!r}\n"
    lab = _hostile.lab(tmp_path, kind_yaml=kind_yaml)

    result = lab.render(lab.cr("value: 1"))

    assert result.exit_code == 1
    _hostile.assert_clean(result)
    assert f"{lab.kind_dir / 'kind.yaml'}:9: status.fields.deep: " in result.output


@settings(max_examples=30, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    opening=st.sampled_from(["(", "[", "{'a': ", "not ", "-", "spec|string" + "|string" * 0]),
    depth=st.integers(min_value=1, max_value=3000),
)
def test_a_status_rule_of_any_nesting_loads_or_fails_at_its_line(
    tmp_path: Path, opening: str, depth: int
) -> None:
    closing = {"(": ")", "[": "]", "{'a': ": "}"}.get(opening, "")
    rule = opening * depth + "1" + closing * depth
    if opening.startswith("spec"):
        rule = "spec" + "|string" * depth
    kind_yaml = _hostile.KIND_YAML + f"status:\n  fields:\n    deep: {rule!r}\n"
    lab = _hostile.lab(tmp_path, kind_yaml=kind_yaml)

    _hostile.assert_clean(lab.render(lab.cr("value: 1")))


def _depth(value: object) -> int:
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


HALF = documents.MAX_DEPTH // 2 + 10  # two halves: each within the limit, together beyond it
SPLIT_BY_A_DOCUMENT_MARKER = {
    "in a flow sequence": "[" * HALF + "\n---\n" + "[" * HALF + "]" * (2 * HALF),
    "after a plain scalar": "[" * HALF + "a\n---\nb" + "[" * HALF + "]" * (2 * HALF),
    "in a quoted scalar": "[" * HALF + "'a\n---\nb'" + "[" * HALF + "]" * (2 * HALF),
    "in a block scalar": "a:\n  b: |\n---\n" + "[" * (2 * HALF) + "]" * (2 * HALF),
    "in a block sequence": "".join("  " * i + "-\n" for i in range(HALF))
    + "---\n"
    + "".join("  " * i + "-\n" for i in range(HALF, 2 * HALF)),
    "after an end marker": "[" * HALF + "\n...\n" + "[" * HALF + "]" * (2 * HALF),
}


@pytest.mark.parametrize("text", SPLIT_BY_A_DOCUMENT_MARKER.values(), ids=SPLIT_BY_A_DOCUMENT_MARKER)
def test_a_deep_value_cut_in_two_by_a_document_marker_never_loads_deeper_than_the_limit(
    tmp_path: Path, text: str
) -> None:
    # A file of many documents is looked at document by document for its nesting: a marker line
    # inside a value must not let one document's nesting be counted as two smaller ones.
    file = tmp_path / "crs.yaml"
    file.write_text(text + "\n")

    try:
        loaded = documents.load_all(file, StencilError)
    except StencilError as error:
        assert error.file == str(file) and error.line is not None
    else:
        assert max(map(_depth, loaded), default=0) <= documents.MAX_DEPTH
