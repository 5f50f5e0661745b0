"""A template that fails inside a block nested in another (a loop in a condition in a macro, a
``{% filter %}``, ``{% call %}`` or ``{% set %}`` block in a loop, a macro or an included template
of another file) is an error at the file and line of what failed."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from engine.core.model.errors import RenderError
from engine.core.templating import rendering, sandbox
from tests.unit import _kinds

# What fails, each on the line it is written on: a computation, a missing field, arithmetic.
ADDS_A_LIST = "  k: {{ spec.x | int + [] }}"
MISSING = "  k: {{ spec.nope.deeper }}"
DIVIDES_BY_ZERO = "  k: {{ 1 // 0 }}"
# Text no larger than the first few rounds of a loop allow (``LIMITS``).
TOO_MUCH = "  k{{ i }}: " + "x" * 400
LIMITS = sandbox.Limits(output_chars=1_000)
# A loop that would write text for hours, its text on its own line: what runs out of time is there.
ENDLESS = "{% for j in range(100000) %}  k{{ i }}-{{ j }}: 1"
SHORT = sandbox.Limits(seconds=0.2, output_chars=1 << 30)


@dataclass(frozen=True)
class Shape:
    """A template (``t0.yaml``, a ConfigMap's data) and maybe ``lib.yaml`` beside it, one of whose
    lines is ``failing``; ``in_lib`` says in which of the two."""

    lines: tuple[str, ...]
    failing: str
    lib: tuple[str, ...] = ()
    in_lib: bool = False
    limits: sandbox.Limits = sandbox.DEFAULT_LIMITS


SHAPES = {
    "a loop inside a condition inside a macro": Shape(
        (
            "{% macro entries(items) %}",
            "{% if items %}",
            "{% for item in items %}",
            ADDS_A_LIST,
            "{% endfor %}",
            "{% endif %}",
            "{% endmacro %}",
            "{{ entries([1]) }}",
        ),
        ADDS_A_LIST,
    ),
    "a filter block inside a loop": Shape(
        ("{% for i in [1] %}", "{% filter indent(2) %}", ADDS_A_LIST, "{% endfilter %}", "{% endfor %}"),
        ADDS_A_LIST,
    ),
    "a call block": Shape(
        (
            "{% macro wrap() %}",
            "{{ caller() }}",
            "{% endmacro %}",
            "{% call wrap() %}",
            DIVIDES_BY_ZERO,
            "{% endcall %}",
        ),
        DIVIDES_BY_ZERO,
    ),
    "a call block whose macro calls it from a loop inside a condition": Shape(
        (
            "{% macro each() %}",
            "{% for i in [1] %}",
            "{% if i %}",
            "{{ caller(i) }}",
            "{% endif %}",
            "{% endfor %}",
            "{% endmacro %}",
            "{% call(i) each() %}",
            MISSING,
            "{% endcall %}",
        ),
        MISSING,
    ),
    "a set block inside a loop": Shape(
        ("{% for i in [1] %}", "{% set text %}", MISSING, "{% endset %}", "{{ text }}", "{% endfor %}"),
        MISSING,
    ),
    "a macro called from a condition inside a loop": Shape(
        (
            "{% macro entry() %}",
            ADDS_A_LIST,
            "{% endmacro %}",
            "{% for i in [1] %}",
            "{% if i %}",
            "{{ entry() }}",
            "{% endif %}",
            "{% endfor %}",
        ),
        ADDS_A_LIST,
    ),
    "a macro imported from another template": Shape(
        (
            "{% import 'lib.yaml' as lib with context %}",
            "{% for i in [1] %}",
            "{{ lib.entries() }}",
            "{% endfor %}",
        ),
        ADDS_A_LIST,
        lib=(
            "{% macro entries() %}",
            "{% for i in [1] %}",
            "{% if i %}",
            ADDS_A_LIST,
            "{% endif %}",
            "{% endfor %}",
            "{% endmacro %}",
        ),
        in_lib=True,
    ),
    "a loop inside an included template": Shape(
        ("{% if true %}", "{% include 'lib.yaml' %}", "{% endif %}"),
        MISSING,
        lib=("{% for i in [1] %}", "{% if i %}", MISSING, "{% endif %}", "{% endfor %}"),
        in_lib=True,
    ),
    "text past the output budget in a loop inside a condition": Shape(
        ("{% if true %}", "{% for i in range(10) %}", TOO_MUCH, "{% endfor %}", "{% endif %}"),
        TOO_MUCH,
        limits=LIMITS,
    ),
    "text past the output budget in a loop inside a loop": Shape(
        ("{% for i in range(10) %}", "{% for j in [1] %}", TOO_MUCH, "{% endfor %}", "{% endfor %}"),
        TOO_MUCH,
        limits=LIMITS,
    ),
    "a loop past the time budget inside a loop inside a condition": Shape(
        (
            "{% if true %}",
            "{% for i in range(100000) %}",
            ENDLESS,
            "{% endfor %}",
            "{% endfor %}",
            "{% endif %}",
        ),
        ENDLESS,
        limits=SHORT,
    ),
}


@pytest.mark.parametrize("shape", SHAPES.values(), ids=SHAPES)
def test_an_error_in_a_nested_block_names_its_template_line(shape: Shape) -> None:
    template = _kinds.configmap("".join(f"{line}\n" for line in shape.lines))
    lib = "".join(f"{line}\n" for line in shape.lib)
    kind = _kinds.kind(template, lib, names=("t0.yaml", "lib.yaml"))
    with pytest.raises(RenderError) as caught:
        rendering.render(kind, _kinds.parent({"x": "1"}), [], limits=shape.limits)
    file, text = ("lib.yaml", lib) if shape.in_lib else ("t0.yaml", template)
    line = text.splitlines().index(shape.failing) + 1
    assert (caught.value.file, caught.value.line) == (f"templates/web/{file}", line), str(caught.value)
