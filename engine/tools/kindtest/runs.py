"""An example's run as ``stencil test`` waits for it: what it waits for, and what it ends with.

A ``Run`` is an example applied into its namespace.  It waits until every parent
holds what the example waits for (Ready at its current generation, or the
expected status), then keeps looking through the settling window (``settling``);
it ends with its settled last look, or with a failed ``Outcome``.  With
``update`` an example has a second run, whose children say which values differ
per run; ``ended`` makes the example's outcome once both runs have ended,
writing or comparing its golden file (the only file this module touches).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from engine.core.model.language import documents
from engine.core.model.objects import Obj
from engine.tools.kindtest import golden, settling
from engine.tools.kindtest.comparing import ABSENT, Difference, differences
from engine.tools.kindtest.examples import Example
from engine.tools.kindtest.report import Outcome


@dataclass(frozen=True)
class Waits:
    """How long the runs are waited for, and what is made of them."""

    timeout: float  # seconds an example has to hold what it waits for
    settle: float  # seconds it must then keep holding it, with nothing written
    update: bool  # write the golden files


@dataclass
class Run:
    """An example applied and being waited for."""

    example: Example
    namespace: str
    parents: list[tuple[str, str | None]]  # name and namespace of each parent it applied
    started: float
    expected_status: documents.Document | None = None  # the companion file, if there is one
    last: list[Obj | None] = field(default_factory=list)  # the parents as last seen
    looks: list[settling.Observation] = field(default_factory=list)  # from the window's opening
    second: Run | None = None  # ``update``: the same example run again, to see what moves
    first: Run | None = None  # of a second run: the example's own run
    ending: settling.Observation | Outcome | None = None  # the settled last look, or the failure
    # A decorator's: why an object it selects is not decorated yet (it writes no status to wait for).
    decorated: Callable[[Obj], str | None] | None = None

    def done(self) -> bool:
        if not self.last or any(parent is None for parent in self.last):
            return False
        return all(self.holds(parent) is None for parent in self.last if parent)

    def holds(self, parent: Obj) -> str | None:
        """Why the parent does not hold what the example waits for; None when it does."""
        if self.decorated is not None:
            return self.decorated(parent)
        if self.expected_status is None:
            return settling.ready(parent, self.example.why_not_ready)  # the CRD pruning Ready, say
        found = self.status_differences([parent])
        if not found:
            return None
        return f"the status does not match what is expected: status.{found[0].describe()}"

    def status_differences(self, of: Sequence[Obj | None] | None = None) -> list[Difference]:
        return [
            difference
            for parent in (self.last if of is None else of)
            for difference in differences(
                self.expected_status.data if self.expected_status else None,
                (parent or {}).get("status", ABSENT),
                subset=True,
            )
        ]

    def why_waiting(self, timeout: float) -> str:
        gone = [name for (name, _), parent in zip(self.parents, self.last, strict=False) if parent is None]
        if gone or not self.last:
            return f"not done after {timeout:.0f}s: parent {', '.join(gone) or '?'} does not exist"
        if self.expected_status is not None:
            document = self.expected_status
            found = "; ".join(
                f"{document.file}:{document.line_of(d.path)}: status.{d.describe()}"
                for d in self.status_differences()[:5]
            )
            return f"not done after {timeout:.0f}s: the status does not match what is expected: {found}"
        waiting = [
            f"{parent['metadata']['name']}: {why}"
            for parent in self.last
            if parent and (why := self.holds(parent)) is not None
        ]
        return f"not Ready after {timeout:.0f}s: {'; '.join(waiting)}"


def ended(run: Run, update: bool) -> Outcome | None:
    """The example's outcome once its runs have ended, None while one goes on: its failure (at
    once, whatever its second run is at), its second run's, else its children checked against
    the golden file (or, with ``update``, written to it, with ``${ANY}`` where the second run's
    differ)."""
    second = run.second
    if isinstance(run.ending, Outcome):
        return run.ending
    if run.ending is None or (second is not None and second.ending is None):
        return None
    seconds = run.looks[0].at - run.started
    other = None
    if second is not None and isinstance(second.ending, Outcome):
        again = f"its second run (namespace {second.namespace}), to see which values differ per run"
        return Outcome(
            run.example, run.namespace, seconds, tuple(f"{again}: {p}" for p in second.ending.problems)
        )
    if second is not None and isinstance(second.ending, settling.Observation):
        other = _forms(second, second.ending)
    problems, diff, wrote = golden.check(
        run.example.golden, _forms(run, run.ending), update=update, second=other
    )
    return Outcome(run.example, run.namespace, seconds, tuple(problems), diff, wrote)


def _forms(run: Run, look: settling.Observation) -> list[Obj]:
    """The golden forms of the children of the run's last look."""
    uids = [str(parent["metadata"]["uid"]) for parent in look.parents if parent]
    return [golden.golden_form(child, run.namespace, uids) for child in look.children or ()]
