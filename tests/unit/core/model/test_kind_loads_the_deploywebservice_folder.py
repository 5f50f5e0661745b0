"""The DeployWebService folder loads: parent, templates, status rules, examples and digest."""

from __future__ import annotations

from pathlib import Path

from engine.core.model import kinds

FOLDER = Path(__file__).resolve().parents[4] / "templates" / "deploywebservice"


def test_the_folder_loads_into_a_kind() -> None:
    kind = kinds.load_kind(FOLDER)
    assert (kind.name, kind.api_version, kind.kind) == (
        "deploywebservice",
        "operator.wujiuye.com/v1beta1",
        "DeployWebService",
    )
    assert [t.name for t in kind.templates] == ["deployment.yaml", "service.yaml"]
    assert [c.type for c in kind.conditions] == [
        "DeploymentProgressing",
        "DeploymentAvailable",
        "ServiceProgressing",
        "ServiceAvailable",
    ]
    assert [f.name for f in kind.fields] == ["nodePort"]
    assert [p.name for p in kind.examples] == ["deploywebservice-sample.yaml", "nginx.yaml"]
    assert kind.placement == kinds.Placement()
    assert len(kind.digest) == 64


def test_status_expressions_know_where_they_came_from() -> None:
    available = kinds.load_kind(FOLDER).conditions[1]
    assert available.status.file == str(FOLDER / "kind.yaml")
    assert available.status.field == "status.conditions[1].from"
    lines = (FOLDER / "kind.yaml").read_text().splitlines()
    said = [n for n, line in enumerate(lines, 1) if "from: {child: deployment, condition: Available}" in line]
    assert [available.status.line] == said
