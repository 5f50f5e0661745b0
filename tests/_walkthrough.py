"""A docs page read as a walk-through: the files it has the reader write, the commands it has them
run, and what it says each command prints, so a test can do what the page says and compare.

The page marks a file to write by a line holding only its path in backquotes and a colon, with the
file in the fenced block under it (`` `templates/site/kind.yaml`: ``).  A ``console`` block is a
session: a line ``$ stencil ...`` is a command, the lines under it what it prints (stdout and stderr
as a terminal shows them), and a line that is only ``...`` stands for any lines, none included,
where the page leaves output out.
"""

from __future__ import annotations

import contextlib
import difflib
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from click.testing import CliRunner

from engine.tools.cli import main

_FILE = re.compile(r"^`(?P<path>[^`\s]+)`:$")
_FENCE = re.compile(r"^```(?P<info>\S*)$")
ELLIPSIS = "..."


@dataclass(frozen=True)
class Command:
    """A command the page shows, where it shows it, and what the page says it prints."""

    line: int  # of the page, 1-based, where the command is
    text: str  # as the page writes it, after the prompt
    shown: tuple[str, ...]

    @property
    def argv(self) -> tuple[str, ...]:
        """The command's words, up to a pipe (``stencil dev | cat`` is ``stencil dev``, piped)."""
        words = shlex.split(self.text)
        return tuple(words[: words.index("|")] if "|" in words else words)


@dataclass(frozen=True)
class Page:
    files: dict[str, str]
    commands: tuple[Command, ...]


def read(path: Path) -> Page:
    """The files and the commands of the page at ``path``, in the page's order."""
    files: dict[str, str] = {}
    commands: list[Command] = []
    lines = path.read_text().splitlines()
    number = 0
    pending: str | None = None  # the path a file block is about to give
    while number < len(lines):
        line = lines[number]
        number += 1
        if marked := _FILE.match(line):
            pending = marked.group("path")
            continue
        fence = _FENCE.match(line)
        if fence is None:
            pending = pending if not line.strip() else None
            continue
        start = number
        while not lines[number].startswith("```"):
            number += 1
        body, number = lines[start:number], number + 1
        if pending is not None:
            files[pending] = "\n".join(body) + "\n"
        elif fence.group("info") == "console":
            commands.extend(_session(body, start))
        pending = None
    return Page(files, tuple(commands))


def _session(body: list[str], start: int) -> list[Command]:
    commands: list[Command] = []
    for offset, line in enumerate(body):
        if line.startswith("$ "):
            commands.append(Command(start + offset + 1, line[2:], ()))
        elif commands:
            last = commands[-1]
            commands[-1] = Command(last.line, last.text, (*last.shown, line))
        else:
            raise ValueError(f"line {start + offset + 1}: output before any command: {line!r}")
    return commands


def write(page: Page, root: Path) -> None:
    """Every file the page has the reader write, under ``root``."""
    for name, text in page.files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def run(command: Command, root: Path) -> tuple[int, str]:
    """``command`` (a ``stencil`` one) run in ``root`` as the reader runs it: its exit status and
    what it printed."""
    program, *arguments = command.argv
    assert program == "stencil", f"line {command.line}: the page runs {command.text!r}, not stencil"
    with contextlib.chdir(root):
        result = CliRunner().invoke(main, arguments, prog_name="stencil")
    return result.exit_code, result.output


def _numbers_as_zero(text: str) -> str:
    return re.sub(r"\d+", "0", text)


def difference(command: Command, printed: str, *, numbers_vary: bool = False) -> str:
    """Empty when ``printed`` is what the page shows (``...`` standing for any lines; with
    ``numbers_vary`` every number for any number); otherwise a diff that says where they part."""
    same = _numbers_as_zero if numbers_vary else str
    pattern = "".join(
        r"(?:.*\n)*?" if line.strip() == ELLIPSIS else re.escape(same(line)) + r"\n" for line in command.shown
    )
    got = "".join(same(line) + "\n" for line in printed.splitlines())
    if re.fullmatch(pattern, got):
        return ""
    diff = difflib.unified_diff(list(command.shown), printed.splitlines(), "the page", "printed", lineterm="")
    return f"line {command.line}: {command.text}:\n" + "\n".join(diff)
