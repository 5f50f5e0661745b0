"""On a terminal ``stencil dev`` shows the kinds' lint findings, then a table row per parent."""

from __future__ import annotations

import io

from rich.console import Console

from engine.tools import parents
from engine.tools.cli import dev

ROW = parents.Row("Web", "shop/b", "False", "ChildrenNotReady", "Deployment b-deployment: 0 of 2 ready", "5m")
FINDING = "templates/web/deployment.yaml:6:3: warning: no example takes this branch"


def shown(rows: list[parents.Row], findings: list[str]) -> str:
    out = io.StringIO()
    Console(file=out, width=200, color_system=None).print(dev.view(rows, findings))
    return out.getvalue()


def test_dev_view_shows_lint_findings_above_the_parents() -> None:
    text = shown([ROW], [FINDING])

    assert text.index(FINDING) < text.index("shop/b")
    row = next(line for line in text.splitlines() if "shop/b" in line)
    for cell in (ROW.kind, ROW.ready, ROW.reason, ROW.blocking, ROW.age):
        assert cell in row


def test_dev_view_says_when_lint_found_nothing() -> None:
    assert "no findings" in shown([ROW], [])
