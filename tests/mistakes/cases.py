"""Building a case's project folder and running ``stencil lint`` on it, as a person would.

Lint runs through click's ``CliRunner`` on the kind folder, and what it prints
has the temporary folder taken out of it, so its paths read as they would from
the project's root (``templates/web/deployment.yaml:21:…``) and are the same on
every run: the guide quotes that text, and ``hack/mistakes-doc --check`` compares it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from click.testing import CliRunner

from engine.tools.cli import main
from tests.mistakes.base import BASES
from tests.mistakes.table import Case, Edit


def project(case: Case) -> dict[str, str]:
    """The files of the case's project: its base kind with the mistake's edits made."""
    files = BASES[case.mistake.base]()
    for edit in case.placement.edits:
        _apply(files, edit)
    return files


def _apply(files: dict[str, str], edit: Edit) -> None:
    if edit.new is None:
        del files[edit.file]
    elif edit.old is None:
        files[edit.file] = edit.new
    else:
        text = files[edit.file]
        if edit.old not in text:
            raise ValueError(f"{edit.file} has no {edit.old!r} to replace")
        files[edit.file] = text.replace(edit.old, edit.new, 1)


def build(case: Case, root: Path) -> Path:
    """The case's project written under ``root``; its kind folder."""
    for name, text in project(case).items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root / "templates" / case.mistake.base


@dataclass(frozen=True)
class Said:
    """What ``stencil lint`` said about a case: its exit status and its output, stdout then stderr."""

    exit_code: int
    output: str

    @property
    def lines(self) -> list[str]:
        return self.output.splitlines()


def lint(case: Case, root: Path) -> Said:
    """Build the case under ``root`` (an empty folder) and lint its kind folder."""
    kind_dir = build(case, root)
    result = CliRunner().invoke(main, ["lint", str(kind_dir)])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    prefix = re.escape(str(root.resolve()) + "/")
    return Said(result.exit_code, re.sub(prefix, "", result.stdout + result.stderr))


def line_of(case: Case) -> int:
    """The line of ``case.placement.at``'s file holding its fragment, in the edited project."""
    file, fragment = case.placement.at
    text = project(case)[file]
    return next(n for n, line in enumerate(text.splitlines(), 1) if fragment in line)
