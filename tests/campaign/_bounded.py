"""Commands run in a child process that may not use more than ``MEMORY_BYTES`` of address space.

A case that would blow up memory must be caught by the engine's own bounds, not
by the machine running out: so the child's address space is capped (``RLIMIT_AS``),
an allocation past the cap fails there as ``MemoryError`` (which the campaign
counts as a failure, since it is not a located error), and the child's peak
resident memory is reported back.  Run as ``python -m tests.campaign._bounded``
with a JSON list of argument lists on stdin; prints a JSON report on stdout.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

MEMORY_BYTES = 1 << 30
ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Outcome:
    """What ``click.testing.Result`` says of a command, as far as ``_hostile.assert_clean`` reads it."""

    exit_code: int
    output: str
    exception: BaseException | None


def run(cases: Sequence[Sequence[str]]) -> tuple[list[Outcome], int]:
    """Each argument list run as ``stencil ...`` in one capped child, and the child's peak RSS in bytes."""
    child = subprocess.run(
        [sys.executable, "-m", "tests.campaign._bounded"],
        input=json.dumps([list(case) for case in cases]),
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert child.returncode == 0, child.stderr
    report = json.loads(child.stdout)
    outcomes = [
        Outcome(
            entry["exit_code"],
            entry["output"],
            None
            if entry["exception"] is None
            else (SystemExit() if entry["exception"] == "SystemExit" else RuntimeError(entry["exception"])),
        )
        for entry in report["outcomes"]
    ]
    return outcomes, int(report["max_rss_kib"]) * 1024


def _exception(name: str | None) -> BaseException | None:
    if name is None:
        return None
    return SystemExit() if name == "SystemExit" else RuntimeError(name)


def _main() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))
    from tests.campaign import _hostile

    outcomes = []
    for arguments in json.load(sys.stdin):
        try:
            result = _hostile.invoke(arguments)
            exception = result.exception
            outcomes.append(
                {
                    "exit_code": result.exit_code,
                    "output": result.output,
                    "exception": None if exception is None else type(exception).__name__,
                }
            )
        except _hostile.CaseTooSlow as slow:
            outcomes.append({"exit_code": -1, "output": str(slow), "exception": "CaseTooSlow"})
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    json.dump({"outcomes": outcomes, "max_rss_kib": peak}, sys.stdout)


if __name__ == "__main__":
    _main()
