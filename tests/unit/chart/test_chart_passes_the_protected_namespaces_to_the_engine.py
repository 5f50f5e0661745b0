"""The chart's ``protectedNamespaces`` reaches ``stencil run --protected-namespaces``; left empty,
no flag is passed and the engine keeps its default (kube-* and its own namespace, the pod's)."""

from __future__ import annotations

from pathlib import Path

from tests.unit.chart.test_chart_helm import container, flag, helm, render

__all__ = ["helm"]  # the module-scoped fixture, shared


def test_protected_namespaces_are_passed_when_set_and_left_to_the_engine_when_not(helm: Path) -> None:
    assert flag(container(render(helm))["args"], "--protected-namespaces") is None

    args = container(render(helm, "protectedNamespaces={kube-*,stencil-system,ops}"))["args"]

    assert flag(args, "--protected-namespaces") == "kube-*,stencil-system,ops"
