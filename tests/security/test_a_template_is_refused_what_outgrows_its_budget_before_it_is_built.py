"""A template whose operation would build more than its budget fails at its file and line through
`stencil render`, refused from its operands before anything is built: the memory traced while it
renders stays near what rendering a harmless template takes.

Templates and status rules share one budget and allowlist (``engine.core.model.budgets``).  The
values are a few times a template's budget of characters, not the gigabytes a tenant would
write, so that an operation the engine failed to bound would still finish here (and the test
fail), not hang.
"""

from __future__ import annotations

import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from tests.security import _offline
from tests.unit import _lintkinds

BIG = 4 << 20  # four times a template's budget of characters
SPEC: dict[str, Any] = {"replicas": BIG, "image": "a" * 2048}

# Each on line 6 of its template; `**` costs time, not memory, so it has an exponent of its own.
CASES: dict[str, tuple[str, dict[str, Any]]] = {
    "batch": ("[1] | batch(spec.replicas, 0) | list | length", SPEC),
    "slice": ("[1] | slice(spec.replicas) | list | length", SPEC),
    "translate": ("spec.image.translate({97: spec.image}) | length", SPEC),
    "bytes-repeat": ("('ab'.encode() * spec.replicas) | length", SPEC),
    "to-bytes": ("(7).to_bytes(spec.replicas, 'big') | length", SPEC),
    "str-repeat": ("('x' * spec.replicas) | length", SPEC),
    "format-width": ("'{:>{w}}'.format('a', w=spec.replicas) | length", SPEC),
    "power": ("3 ** spec.replicas", {"replicas": 300_000}),
}


def _peak(root: Path, expression: str, spec: dict[str, Any]) -> tuple[int, Path, str]:
    tracemalloc.start()
    try:
        template = _lintkinds.configmap(f"  a: '{{{{ {expression} }}}}'\n")
        file, result = _offline.render(root, template, spec)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak, file, result.output


@pytest.mark.parametrize(("expression", "spec"), CASES.values(), ids=CASES.keys())
def test_a_template_is_refused_what_outgrows_its_budget_before_it_is_built(
    tmp_path: Path, expression: str, spec: dict[str, Any]
) -> None:
    harmless, _, _ = _peak(tmp_path / "harmless", "spec.image | length", SPEC)
    peak, file, output = _peak(tmp_path / "hostile", expression, spec)
    assert f"{file}:6: " in output, output
    assert "more than" in output, output
    assert peak < harmless + (1 << 20), f"{peak - harmless} bytes more than a harmless render were allocated"
