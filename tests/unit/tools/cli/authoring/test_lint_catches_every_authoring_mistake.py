"""`stencil lint` catches each kind author's mistake of the table in tests/mistakes at its file and line,
naming the rule or field, in a branch the examples take and in one they do not.

The kinds the mistakes are made in lint clean, so what lint says about a case is
about its mistake.  A case lint cannot catch is an expected failure whose reason
says why: a gap, kept in sight until it is closed.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from engine.tools.cli import main
from tests.mistakes import cases
from tests.mistakes.base import BASES
from tests.mistakes.table import CASES, Case


def _param(case: Case) -> object:
    gap = case.placement.xfail
    marks = [pytest.mark.xfail(strict=True, reason=gap)] if gap else []
    return pytest.param(case, id=case.id, marks=marks)


@pytest.mark.parametrize("base", sorted(BASES))
def test_lint_finds_nothing_in_the_kinds_the_mistakes_are_made_in(base: str, tmp_path: Path) -> None:
    for name, text in BASES[base]().items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)

    result = CliRunner().invoke(main, ["lint", str(tmp_path / "templates" / base)])

    assert (result.exit_code, result.output) == (0, "")


@pytest.mark.parametrize("case", [_param(case) for case in CASES])
def test_lint_names_the_place_and_the_rule_of_the_mistake(case: Case, tmp_path: Path) -> None:
    file, _ = case.placement.at
    place = f"{file}:{cases.line_of(case)}:"
    severity = case.mistake.severity

    said = cases.lint(case, tmp_path)

    there = [line for line in said.lines if line.startswith(place) and f" {severity}: " in line]
    assert there, f"nothing at {place}; lint said:\n{said.output}"
    assert any(case.mistake.says in line for line in there), said.output
    if severity == "error":
        assert said.exit_code == 1
