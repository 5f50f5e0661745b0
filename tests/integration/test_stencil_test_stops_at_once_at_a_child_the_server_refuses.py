"""A child the API server refuses for good (here a Service whose ``clusterIP`` lies outside the
Service range, 422) fails ``stencil test`` within seconds, not at the timeout: with the server's
own message, at the template file and line of the field it names."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from engine.localcluster.components import SERVICE_CIDR
from engine.tools import cli
from tests.integration import _widgets
from tests.unit.tools.test_refused_child_is_reported_at_its_template_line import SERVICE  # the one it locates

pytestmark = [pytest.mark.cluster, pytest.mark.nodes]


def test_stencil_test_stops_at_once_at_a_child_the_server_refuses(tmp_path: Path) -> None:
    assert not SERVICE_CIDR.startswith("10.0.")  # the template's 10.0.0.10 is outside the range
    kind_dir = _widgets.widget_project(tmp_path, {"service.yaml": SERVICE}, {"web": _widgets.widget("web")})

    result = CliRunner().invoke(cli.main, ["test", str(kind_dir), "--timeout", "60"])

    assert result.exit_code == 1, result.output
    stopped = re.search(
        r"^FAIL widget/web  not ready, stopped after (\d+\.\d)s$", result.output, re.MULTILINE
    )
    assert stopped is not None and float(stopped.group(1)) < 10, result.output
    where = f'{kind_dir}/service.yaml:7: Service web: 422 Service "web" is invalid: spec.clusterIPs: '
    assert where in result.output, result.output
    assert "the provided network does not match the current range" in result.output
