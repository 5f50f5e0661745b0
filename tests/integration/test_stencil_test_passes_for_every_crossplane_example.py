"""``stencil test`` over examples/crossplane, the kinds ported from function-go-templating's
examples: every example of every one of them reaches the status its tests/ folder expects on a
local control plane (Ready, with the conditions beside it), with the children its golden file says."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from engine.tools import cli
from tests.integration._engine import ROOT

pytestmark = [pytest.mark.cluster, pytest.mark.nodes]

CROSSPLANE = ROOT / "examples" / "crossplane"


def test_stencil_test_passes_for_every_crossplane_example() -> None:
    examples = sorted(CROSSPLANE.glob("*/examples/*.yaml"))

    result = CliRunner().invoke(cli.main, ["test", "--templates", str(CROSSPLANE)])

    assert result.exit_code == 0, result.output
    for example in examples:
        passed = rf"^PASS {re.escape(example.parents[1].name)}/{re.escape(example.stem)}  ready in "
        assert re.search(passed, result.output, re.MULTILINE), result.output
    assert f"{len(examples)} passed, 0 failed" in result.output
    assert len({example.parents[1] for example in examples}) >= 2
