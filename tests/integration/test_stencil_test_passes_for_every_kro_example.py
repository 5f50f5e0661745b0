"""``stencil test`` over examples/kro, the kinds ported from kro's own graphs: every example of
every one of them converges on a local control plane, Ready, with the children its golden file
says."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from engine.tools import cli
from tests.integration._engine import ROOT

pytestmark = [pytest.mark.cluster, pytest.mark.nodes]

KRO = ROOT / "examples" / "kro"


def test_stencil_test_passes_for_every_kro_example() -> None:
    examples = sorted(KRO.glob("*/examples/*.yaml"))

    result = CliRunner().invoke(cli.main, ["test", "--templates", str(KRO)])

    assert result.exit_code == 0, result.output
    for example in examples:
        passed = rf"^PASS {re.escape(example.parents[1].name)}/{re.escape(example.stem)}  ready in "
        assert re.search(passed, result.output, re.MULTILINE), result.output
    assert f"{len(examples)} passed, 0 failed" in result.output
    assert len({example.parents[1] for example in examples}) >= 5
