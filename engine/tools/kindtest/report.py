"""What ``stencil test`` makes of its examples, and what it prints of them.

An ``Outcome`` per example, a ``Report`` for the run.  Each outcome is printed
as soon as its example is done or given up, so a long run shows its progress: a
``PASS``/``FAIL`` line with the example's timing, then each problem (a sentence
naming the file, line and field where it can) and the unified diff of its golden
file, indented under it.  The run ends with one line counting what passed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from engine.tools.kindtest.examples import Example


@dataclass(frozen=True)
class Outcome:
    """What became of one example."""

    example: Example
    namespace: str
    seconds: float | None  # from its apply to Ready (or the expected status); None: never got there
    problems: tuple[str, ...] = ()  # each a sentence naming the file, line and field where it can
    diff: str = ""  # golden file against the live children, unified
    wrote: Path | None = None  # the golden file written by ``update``
    stopped: float | None = None  # not Ready: how long after its apply it was given up

    @property
    def passed(self) -> bool:
        return self.seconds is not None and not self.problems


@dataclass(frozen=True)
class Report:
    outcomes: tuple[Outcome, ...]
    seconds: float  # the whole run, start-up and teardown of the plane included
    plane_seconds: float = 0.0  # of which starting the control plane

    @property
    def passed(self) -> bool:
        return all(outcome.passed for outcome in self.outcomes)


def echo_outcome(outcome: Outcome, echo: Callable[[str], None]) -> None:
    timing = f"ready in {outcome.seconds:.1f}s" if outcome.seconds is not None else "not ready"
    verdict = "PASS" if outcome.passed else "FAIL"
    if outcome.stopped is not None:
        timing += f", stopped after {outcome.stopped:.1f}s"
    line = f"{verdict} {outcome.example.name}  {timing}"
    if outcome.wrote is not None:
        line += f"; wrote {outcome.wrote}"
    echo(line)
    for problem in outcome.problems:
        echo(f"  {problem}")
    if outcome.diff:
        echo("  " + outcome.diff.rstrip("\n").replace("\n", "\n  "))


def summary(report: Report) -> str:
    """The run's last line: how many examples passed and failed, and in how long."""
    passed = sum(outcome.passed for outcome in report.outcomes)
    return (
        f"{passed} passed, {len(report.outcomes) - passed} failed in {report.seconds:.1f}s "
        f"(control plane start {report.plane_seconds:.1f}s)"
    )
