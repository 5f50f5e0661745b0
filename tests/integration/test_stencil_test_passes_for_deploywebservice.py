"""``stencil test templates/deploywebservice`` runs every example on its own local control plane,
finds each parent Ready and its children as the golden files say, and prints each one's timing."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from engine.tools import cli
from tests.integration._engine import ROOT

pytestmark = [pytest.mark.cluster, pytest.mark.nodes]

FOLDER = ROOT / "templates" / "deploywebservice"


def test_stencil_test_passes_for_deploywebservice() -> None:
    examples = sorted((FOLDER / "examples").glob("*.yaml"))

    result = CliRunner().invoke(cli.main, ["test", str(FOLDER)])

    assert result.exit_code == 0, result.output
    for example in examples:
        timing = rf"^PASS deploywebservice/{re.escape(example.stem)}  ready in \d+\.\d+s$"
        assert re.search(timing, result.output, re.MULTILINE), result.output
    assert f"{len(examples)} passed, 0 failed" in result.output
