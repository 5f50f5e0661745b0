"""Two examples whose parents would make the same Namespace (cluster-scoped, so shared by every
example of a run) are found before anything is applied: the later one is not run, and the
message names the template line, the object and the example that makes it first; the others run."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from engine.tools import cli
from tests.integration import _widgets

pytestmark = [pytest.mark.cluster, pytest.mark.nodes]

NAMESPACE = """\
apiVersion: v1
kind: Namespace
metadata:
  name: {{ spec.tenant }}
"""


def test_stencil_test_does_not_run_an_example_that_makes_anothers_cluster_scoped_object(
    tmp_path: Path,
) -> None:
    examples = {
        name: _widgets.widget(name, tenant=tenant) for name, tenant in [("a", "t1"), ("b", "t1"), ("c", "t2")]
    }
    kind_dir = _widgets.widget_project(tmp_path, {"namespace.yaml": NAMESPACE}, examples)
    with (kind_dir / "kind.yaml").open("a") as kind_yaml:
        kind_yaml.write("placement:\n  clusterScoped: true\n")

    result = CliRunner().invoke(cli.main, ["test", str(kind_dir), "--update"])

    assert result.exit_code == 1, result.output
    assert (
        f"FAIL widget/b  not ready\n  not run: {kind_dir}/namespace.yaml:4: Namespace t1 is made by example "
        "widget/a too; cluster-scoped objects are shared by every example of the run"
    ) in result.output
    assert "PASS widget/a" in result.output and "PASS widget/c" in result.output
    assert "1 failed" in result.output
