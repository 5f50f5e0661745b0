"""On a terminal ``stencil dev`` shows the kinds' lint findings, then a table row per parent."""

from __future__ import annotations

import io

from rich.console import Console

from engine.tools import parents
from engine.tools.cli.trying import dev

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


def test_at_80_columns_the_reason_and_what_ready_waits_on_are_folded_not_cut() -> None:
    row = parents.Row(
        "DeployWebService",
        "team-payments/checkout-frontend",
        "False",
        "ChildrenNotReady",
        "Deployment checkout-frontend-deployment: 0 of 2 replicas available",
        "12m",
    )
    out = io.StringIO()
    Console(file=out, width=80, color_system=None).print(dev.view([row], []))

    lines = out.getvalue().splitlines()
    assert all(len(line) <= 80 for line in lines), lines
    body = [line.split("│")[1:-1] for line in lines if line.startswith("│")]
    columns = ["".join("".join(cells[i].split()) for cells in body) for i in range(6)]
    assert columns == [
        "".join(cell.split()) for cell in (row.kind, row.name, row.ready, row.reason, row.blocking, row.age)
    ]
