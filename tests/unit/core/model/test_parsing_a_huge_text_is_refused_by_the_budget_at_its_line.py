"""A huge JSON or YAML text is refused by the budget before it is parsed, at the template's or
rule's line, in well under the time its parsing would take."""

from __future__ import annotations

import time

import pytest

from engine.core.model.errors import KindError, RenderError
from tests.unit._library import render_data, rule

# 4 MiB of YAML (a flow list of small numbers, the costliest text to parse a character) takes
# libyaml minutes; its JSON twin fills the budget's characters four times over.
HUGE = "[" + "1," * (2 << 20) + "1]"


@pytest.mark.parametrize("parse", ["fromyaml", "fromjson"])
def test_a_template_parsing_a_huge_text_fails_at_its_line(parse: str) -> None:
    started = time.thread_time()  # its own CPU time: the same beside other work
    with pytest.raises(RenderError, match=f"{parse} would build") as caught:
        render_data(f"  x: x\n  n: '{{{{ spec.text | {parse} | length }}}}'\n", {"text": HUGE})
    assert caught.value.line == 7
    assert time.thread_time() - started < 1


def test_a_rule_parsing_a_huge_text_is_over_budget() -> None:
    started = time.thread_time()
    with pytest.raises(KindError, match="fromyaml would build") as caught:
        rule("spec.text | fromyaml | length", {"text": HUGE})
    assert (caught.value.line, caught.value.reason) == (9, "OverBudget")
    assert time.thread_time() - started < 1


def test_yaml_is_charged_more_than_its_characters() -> None:
    # 128 KiB is an eighth of the budget's characters, yet as YAML more than it may parse.
    text = "[" + "1," * (64 << 10) + "1]"
    assert rule("spec.text | fromjson | length", {"text": text}) == (64 << 10) + 1
    with pytest.raises(KindError, match="fromyaml would build"):
        rule("spec.text | fromyaml | length", {"text": text})
