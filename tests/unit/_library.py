"""Render one ConfigMap template, or evaluate one status rule, for the library tests."""

from __future__ import annotations

from typing import Any

from engine.core.decisions.context import status_context
from engine.core.model.language.expressions import compile_expression
from engine.core.templating import rendering
from tests.unit import _kinds


def render_data(data: str, spec: dict[str, Any]) -> dict[str, Any]:
    """The ``data`` of the one ConfigMap a template with this ``data`` block renders for ``spec``."""
    [configmap] = rendering.render(_kinds.kind(_kinds.configmap(data)), _kinds.parent(spec), [])
    found: dict[str, Any] = configmap["data"]
    return found


def rule(text: str, spec: dict[str, Any]) -> Any:
    """The value of the status rule ``text`` for a parent with ``spec``."""
    compiled = compile_expression(text, file="templates/web/kind.yaml", line=9, field="fields.x")
    return compiled.evaluate(status_context({"spec": spec}, []))
