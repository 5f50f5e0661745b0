"""The contract of the offline commands: for every kind folder in the repository (the shipped
kinds, and every kind under ``examples/``), each example run live by ``stencil test`` on the real
plane is rendered again offline through the one door, fed the same parent, children and fixtures,
and must make the same children (by the hash of what was rendered) and the same status
(``engine.tools.kindtest.agreement``).  A kind added to the repository is found by the glob: it is
covered without a line written for it.  It is also what runs `stencil test` over the ported
examples (examples/kro, metacontroller, crossplane, decorators)."""

from __future__ import annotations

import pathlib
import re

import pytest
from click.testing import CliRunner

from engine.core.model import kinds
from engine.tools import cli
from tests.integration._engine import ROOT

pytestmark = [pytest.mark.cluster, pytest.mark.nodes]

FOLDERS = sorted(
    path.parent
    for path in [*ROOT.glob(f"templates/*/{kinds.KIND_FILE}"), *ROOT.glob(f"examples/**/{kinds.KIND_FILE}")]
)
# Kind folders are run beside the others of their folder (two folders apart may share a name).
GROUPS = sorted({folder.parent for folder in FOLDERS})
# The kinds ported from the peers' published examples, each a folder this test must find.
PORTED = {
    "examples/kro": {
        "application",
        "celfunctions",
        "jobdeployment",
        "resultapp",
        "voteapp",
        "webapp",
        "workerapp",
    },
    "examples/metacontroller": {"bluegreen", "catset", "indexedjob"},
    "examples/crossplane": {"conditions", "getcomposedresource"},
    "examples/decorators": {"service-per-pod", "pod-name-label"},
}


@pytest.mark.parametrize("group", GROUPS, ids=[str(group.relative_to(ROOT)) for group in GROUPS])
def test_every_example_of_every_kind_renders_offline_as_it_ran_live(group: pathlib.Path) -> None:
    folders = [folder for folder in FOLDERS if folder.parent == group]
    examples = [example for folder in folders for example in sorted(folder.glob("examples/*.yaml"))]
    assert len(FOLDERS) >= 20 and examples  # the shipped kinds, the ports and the webapp
    assert PORTED.get(str(group.relative_to(ROOT)), set()) <= {folder.name for folder in folders}

    result = CliRunner().invoke(cli.main, ["test", *map(str, folders)])

    assert "offline and live differ" not in result.output, result.output
    assert result.exit_code == 0, result.output
    for example in examples:
        passed = rf"^PASS {re.escape(example.parents[1].name)}/{re.escape(example.stem)}  ready in "
        assert re.search(passed, result.output, re.MULTILINE), result.output
    assert f"{len(examples)} passed, 0 failed" in result.output
