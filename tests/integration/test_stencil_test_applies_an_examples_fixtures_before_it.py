"""``tests/<example>.fixtures.yaml`` is applied into the example's namespace before the example:
here the fixture holds the name the kind's ConfigMap wants, so the parent meets a ConfigMap it
does not control, and ``stencil test`` says so at once, at the template line of that child."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from engine.tools import cli, kindtest
from tests.integration import _widgets

pytestmark = [pytest.mark.cluster, pytest.mark.nodes]

FIXTURE = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: web-data
data: {made: by the fixture}
"""


def test_stencil_test_applies_an_examples_fixtures_before_it(tmp_path: Path) -> None:
    kind_dir = _widgets.widget_project(
        tmp_path, {"data.yaml": _widgets.VALUE_CONFIGMAP}, {"web": _widgets.widget("web", value="one")}
    )
    (kind_dir / kindtest.TESTS_DIR).mkdir()
    (kind_dir / kindtest.TESTS_DIR / "web.fixtures.yaml").write_text(FIXTURE)

    result = CliRunner().invoke(cli.main, ["test", str(kind_dir), "--timeout", "60"])

    assert result.exit_code == 1, result.output
    stopped = re.search(
        r"^FAIL widget/web  not ready, stopped after (\d+\.\d)s$", result.output, re.MULTILINE
    )
    assert stopped is not None and float(stopped.group(1)) < 10, result.output
    conflict = re.search(
        r"data\.yaml:4: ConfigMap web-data: ConfigMap \S+/web-data already exists", result.output
    )
    assert conflict is not None, result.output
