"""A status rule whose operation would build more than its budget fails at its kind.yaml line,
refused from its operands before anything is built: the memory traced while it runs stays far
below what the operation would have taken.

The values are a few times the budget, not the gigabytes a tenant would write, so that a
rule the engine failed to bound would still finish here (and the test fail), not hang.
"""

from __future__ import annotations

import time
import tracemalloc
from typing import Any

import pytest

from engine.core.decisions.context import status_context
from engine.core.model.errors import KindError
from engine.core.model.language import expressions

BIG = 4 << 20  # four times a rule's budget of characters
SPEC: dict[str, Any] = {
    "n": BIG,
    "b": 3,
    "e": 300_000,  # 3 ** 300000: about 475,000 bits
    "one": "a",
    "lines": "a\nb",
    "list": [1],
    "half": "a" * 2048,
    "long": "b" * 2048,
    "tabs": "\t",
    "parts": ["x"] * 2048,
    "wide": "x" * (700 << 10),
}

CASES = {
    "power": "spec.b ** spec.e",
    "str-repeat": "('x' * spec.n) | length",
    "list-repeat": "(spec.list * spec.n) | length",
    "bytes-repeat": "('ab'.encode() * spec.n) | length",
    "concatenation": "(spec.wide + spec.wide) | length",
    "format-width": "'{:>{w}}'.format('a', w=spec.n)",
    "percent-width": "'%*s' % (spec.n, 'a')",
    "format-filter": "'%*s' | format(spec.n, 'a')",
    "ljust": "spec.one.ljust(spec.n)",
    "zfill": "spec.one.zfill(spec.n)",
    "center-filter": "spec.one | center(spec.n)",
    "expandtabs": "spec.tabs.expandtabs(spec.n)",
    "replace-method": "spec.half.replace('a', spec.long)",
    "replace-filter": "spec.half | replace('a', spec.long)",
    "translate": "spec.half.translate({97: spec.long})",
    "to-bytes": "(7).to_bytes(spec.n, 'big') | length",
    "join-method": "spec.long.join(spec.parts)",
    "join-filter": "spec.parts | join(spec.long)",
    "batch": "spec.list | batch(spec.n, 0) | list | length",
    "slice": "spec.list | slice(spec.n) | list | length",
    "indent": "spec.lines | indent(spec.n)",
    "wordwrap": "spec.long | wordwrap(1)",
}


@pytest.mark.parametrize("rule", CASES.values(), ids=CASES.keys())
def test_a_status_rule_is_refused_what_outgrows_its_budget_before_it_is_built(rule: str) -> None:
    expression = expressions.compile_expression(
        rule, file="templates/web/kind.yaml", line=7, field="conditions[0].status"
    )
    context = status_context({"metadata": {"name": "web"}, "spec": SPEC}, ())
    tracemalloc.start()
    started = time.thread_time()  # its own CPU time: the same beside other work
    try:
        with pytest.raises(KindError) as raised:
            expression.evaluate(context)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert time.thread_time() - started < 1
    assert raised.value.reason == "OverBudget", str(raised.value)
    assert str(raised.value).startswith("templates/web/kind.yaml:7: conditions[0].status: ")
    assert peak < 1 << 20, f"{peak} bytes were allocated before the rule was refused"
