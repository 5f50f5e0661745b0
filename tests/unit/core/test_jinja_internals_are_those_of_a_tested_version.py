"""The Jinja installed is one ``engine.core.jinja`` is tested against, and has every internal
that module relies on: a new Jinja fails here, not in a template's rendered line or its sandbox."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import jinja2
import pytest

from engine.core import jinja

PYPROJECT = Path(__file__).resolve().parents[3] / "pyproject.toml"


def _release(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", version.split("+")[0])[:3])


def test_the_installed_jinja_is_a_tested_version() -> None:
    first, beyond = jinja.TESTED
    assert first <= _release(jinja2.__version__) < beyond, (
        f"Jinja {jinja2.__version__} is not among the versions engine.core.jinja is tested "
        f"against ({first} up to {beyond}): check each internal it lists, then widen TESTED and the pin"
    )


def test_the_pin_in_pyproject_names_the_tested_versions() -> None:
    dependencies = tomllib.loads(PYPROJECT.read_text())["project"]["dependencies"]
    first, beyond = jinja.TESTED
    spelled = ".".join(map(str, first)), ".".join(map(str, beyond))
    assert f"jinja2>={spelled[0]},<{spelled[1]}" in dependencies


@pytest.mark.parametrize(
    ("owner", "name"), jinja.RELIED_ON, ids=[f"{getattr(o, '__name__', o)}.{n}" for o, n in jinja.RELIED_ON]
)
def test_every_internal_relied_on_is_there(owner: object, name: str) -> None:
    assert hasattr(owner, name), f"Jinja {jinja2.__version__} has no {name} on {owner!r}"


TEMPLATE = "a: 1\n{% if x %}\nb: {{ x }}\n{% endif %}\nc: 3\n"


def test_the_code_generator_still_notes_the_line_of_each_run_of_text() -> None:
    # Calls TextLines's overrides of visit_Output, _output_const_repr and writeline: were one renamed,
    # the runs of text would go unnoted.
    environment = jinja2.Environment(trim_blocks=True, keep_trailing_newline=True)
    lines = jinja.text_lines(environment, TEMPLATE, "t.yaml", "t.yaml")
    pieces = sorted(piece for run in lines.values() for piece in run)
    assert pieces == [(1, "a: 1\n"), (3, "\n"), (3, "b: "), (5, "c: 3\n")]


def test_a_compiled_template_says_where_it_is_suspended_and_where_it_raised() -> None:
    template = jinja2.Environment().from_string(TEMPLATE)
    generator = jinja.generated(template, {"x": 2})
    next(generator)
    code, instruction = jinja.suspended_at(generator)
    assert code.co_filename == "<template>"
    assert jinja.template_line(template, jinja.code_line(code, instruction)) == 1

    failing = jinja2.Environment().from_string("a: 1\nb: {{ 1 // 0 }}\n")
    with pytest.raises(ZeroDivisionError) as raised:
        "".join(jinja.generated(failing, {}))
    assert jinja.raised_at(raised.value, {"<template>"}) == ("<template>", 2)


def test_the_lines_of_each_block_body_are_those_of_the_compiled_template() -> None:
    # Runs _BlockLines's override of blockvisit and the check against the compiled line table:
    # were either renamed, lint would learn no branch lines.
    environment = jinja2.Environment(loader=jinja2.DictLoader({"t.yaml": TEMPLATE}))
    tree = environment.parse(TEMPLATE)
    lines = jinja.block_lines(environment, tree, "t.yaml", "t.yaml")
    assert lines is not None
    [if_node] = tree.find_all(jinja2.nodes.If)
    start, end = lines[id(if_node.body)]
    assert start < end


def test_a_filter_that_takes_its_context_is_told_from_one_that_does_not() -> None:
    assert jinja.passes_context(jinja2.pass_context(lambda context, value: value))
    assert not jinja.passes_context(lambda value: value)


def test_a_macro_says_whether_a_call_block_may_hand_it_its_caller() -> None:
    # Reads Macro.caller and Macro.catch_kwargs, which Jinja sets on each macro it makes: were either
    # renamed, an empty {% call %} block of a macro that never calls caller() would fail again.
    module = (
        jinja2.Environment()
        .from_string(
            "{% macro plain() %}x{% endmacro %}{% macro wraps() %}{{ caller() }}{% endmacro %}"
            "{% macro keywords() %}{{ kwargs }}{% endmacro %}"
        )
        .module
    )
    assert [jinja.takes_caller(getattr(module, name)) for name in ("plain", "wraps", "keywords")] == [
        False,
        True,
        True,
    ]
