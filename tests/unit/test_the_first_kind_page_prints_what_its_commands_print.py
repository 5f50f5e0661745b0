"""docs/first-kind.md, followed as a newcomer follows it: the files it has them write, in an empty
folder, make a kind on which each command the page runs offline (`stencil lint`, `stencil render`)
exits 0 and prints what the page shows.  The commands that start a control plane (`stencil test`,
`stencil dev`) are followed on one by
tests/integration/test_the_first_kind_page_ends_with_a_ready_parent.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import _walkthrough

PAGE = Path(__file__).resolve().parents[2] / "docs" / "first-kind.md"
OFFLINE = {"lint", "render", "crd"}
LIVE = {"test", "dev"}
COMMANDS = _walkthrough.read(PAGE).commands


def test_the_page_writes_a_kind_and_runs_lint_render_test_and_dev_on_it() -> None:
    page = _walkthrough.read(PAGE)

    assert "templates/site/kind.yaml" in page.files
    assert {command.argv[1] for command in page.commands} >= {"lint", "render", "test", "dev"}
    for command in page.commands:  # a command no test follows could say anything
        assert command.argv[1] in OFFLINE | LIVE, f"line {command.line}: {command.text}"


@pytest.mark.parametrize(
    "command",
    [command for command in COMMANDS if command.argv[1] in OFFLINE],
    ids=lambda command: f"line {command.line}",
)
def test_an_offline_command_prints_what_the_page_shows(command: _walkthrough.Command, tmp_path: Path) -> None:
    _walkthrough.write(_walkthrough.read(PAGE), tmp_path)

    exit_code, printed = _walkthrough.run(command, tmp_path)

    assert exit_code == 0, printed
    assert _walkthrough.difference(command, printed) == ""
