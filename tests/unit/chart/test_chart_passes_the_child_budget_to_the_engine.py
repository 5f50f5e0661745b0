"""The chart's ``maxChildren`` reaches ``stencil run --max-children``, 2,000 unless set, the
engine's own default; a value that is no positive number is refused by the chart's schema."""

from __future__ import annotations

from pathlib import Path

from engine.core.model import kinds
from tests.unit.chart.test_chart_helm import CHART, container, flag, helm, render, run_helm

__all__ = ["helm"]  # the module-scoped fixture, shared


def test_the_child_budget_is_passed_and_defaults_to_the_engines(helm: Path) -> None:
    assert flag(container(render(helm))["args"], "--max-children") == str(kinds.MAX_CHILDREN)
    assert flag(container(render(helm, "maxChildren=300"))["args"], "--max-children") == "300"


def test_a_budget_of_no_children_is_refused(helm: Path) -> None:
    result = run_helm(helm, "template", "rel", str(CHART), "--set", "maxChildren=0")
    assert result.returncode != 0
    assert "maxChildren" in result.stderr
