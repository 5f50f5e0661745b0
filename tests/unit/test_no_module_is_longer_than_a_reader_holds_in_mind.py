"""Every module of the engine is at most 450 lines, and every function on a reconcile's path
(the reconcile's steps, the decisions it asks for, rendering, placement) at most 60: past that,
a module is two things and a function two steps, and each should be split where a reader would."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parents[2] / "engine"
MAX_MODULE_LINES = 450
MAX_FUNCTION_LINES = 60
RECONCILE_PATH = (
    "runtime/reconciling",
    "core/decisions",
    "core/templating",
    "core/model/children/placement.py",
)
MODULES = sorted(ENGINE.rglob("*.py"))


def _name(path: Path) -> str:
    return str(path.relative_to(ENGINE))


@pytest.mark.parametrize("path", MODULES, ids=_name)
def test_a_module_is_at_most_450_lines(path: Path) -> None:
    lines = len(path.read_text().splitlines())
    assert lines <= MAX_MODULE_LINES, f"{_name(path)} has {lines} lines"


@pytest.mark.parametrize("path", [p for p in MODULES if _name(p).startswith(RECONCILE_PATH)], ids=_name)
def test_a_function_on_the_reconcile_path_is_at_most_60_lines(path: Path) -> None:
    long = [
        f"{node.name} ({node.end_lineno - node.lineno + 1} lines, from line {node.lineno})"
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES
    ]
    assert not long, f"{_name(path)}: {', '.join(long)}"
