"""``stencil test`` over examples/metacontroller, the kinds ported from Metacontroller's own
examples: every example of every one of them converges on a local control plane, Ready (or, for
IndexedJob, whose Pods this plane never runs to completion, at the status its test names), with
the children its golden file says."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from engine.tools import cli
from tests.integration._engine import ROOT

pytestmark = [pytest.mark.cluster, pytest.mark.nodes]

METACONTROLLER = ROOT / "examples" / "metacontroller"


def test_stencil_test_passes_for_every_metacontroller_example() -> None:
    examples = sorted(METACONTROLLER.glob("*/examples/*.yaml"))

    result = CliRunner().invoke(cli.main, ["test", "--templates", str(METACONTROLLER)])

    assert result.exit_code == 0, result.output
    for example in examples:
        passed = rf"^PASS {re.escape(example.parents[1].name)}/{re.escape(example.stem)}  ready in "
        assert re.search(passed, result.output, re.MULTILINE), result.output
    assert f"{len(examples)} passed, 0 failed" in result.output
    assert {example.parents[1].name for example in examples} >= {"bluegreen", "catset", "indexedjob"}
