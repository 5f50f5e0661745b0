"""`stencil lint --graph` prints what each template waits for, and why: the edge a
``children.<id>`` read makes, at its line, beside those ``after:`` writes."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from engine.tools import cli
from tests.unit import _lintkinds

CONFIGMAP = _lintkinds.configmap("  ip: \"{{ children.svc.spec.clusterIP if children.svc else '' }}\"\n")
SERVICE = "apiVersion: v1\nkind: Service\nmetadata:\n  name: svc\nspec:\n  ports: [{port: 80}]\n"
PLAIN = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: '{{ name }}'\n"


def test_lint_graph_shows_the_inferred_edge_with_its_line(tmp_path: Path) -> None:
    folder = _lintkinds.kind_folder(
        tmp_path,
        {"cm.yaml": CONFIGMAP, "svc.yaml": SERVICE, "secret.yaml": PLAIN},
        kind_yaml_extra="templates:\n  - cm.yaml\n  - svc.yaml\n  - {file: secret.yaml, after: [svc]}\n",
    )

    result = CliRunner().invoke(cli.main, ["lint", "--graph", str(folder)])

    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        f"{folder}: cm waits for svc (reads children.svc at {folder / 'cm.yaml'}:6)",
        f"{folder}: secret waits for svc (after: in kind.yaml)",
    ]


def test_lint_without_graph_prints_no_edges(tmp_path: Path) -> None:
    folder = _lintkinds.kind_folder(tmp_path, {"cm.yaml": CONFIGMAP, "svc.yaml": SERVICE})

    result = CliRunner().invoke(cli.main, ["lint", str(folder)])

    assert result.exit_code == 0, result.output
    assert result.stdout == ""
