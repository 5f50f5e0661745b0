"""``stencil run`` with one of its machines turned off, so a backlog shows what the machine saves.

    python -m bench.machines own-writes run --kubeconfig ...      # what the benchmark starts

A machine here is code the engine carries for speed alone: turned off, the engine converges
the same parents to the same state, with more reconciles or writes.  The switch lives in the
benchmark, not in the engine nor its flags: before the command runs, the engine's own
definition is replaced with what the code would be without the machine.

- ``own-writes``: an informer's ``writing`` only caches the write's answer
  (``Informer.observe``), and holds no watch event back, so the event of the engine's own
  write that overtakes the write's answer wakes the writer again
  (``engine.runtime.cluster.ownwrites``);
- ``pacing``: a status that only reports progress is written at once, not at most one per
  ``reporting.PROGRESS_INTERVAL``.

A replaced name that is gone (the engine changed) fails the start, not the figures.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator

from engine.core.model.objects import Obj
from engine.runtime.cluster import watching
from engine.runtime.reconciling.reconcile import reporting


def _own_writes_off() -> None:
    assert callable(watching.Informer.writing), "Informer.writing is gone"

    @contextlib.contextmanager
    def writing(self: watching.Informer, obj: Obj) -> Iterator[Callable[[Obj], None]]:
        yield self.observe

    watching.Informer.writing = writing  # type: ignore[method-assign,assignment]


def _pacing_off() -> None:
    assert isinstance(reporting.PROGRESS_INTERVAL, float), "reporting.PROGRESS_INTERVAL is gone"
    reporting.PROGRESS_INTERVAL = 0.0


MACHINES: dict[str, Callable[[], None]] = {"own-writes": _own_writes_off, "pacing": _pacing_off}


def main(argv: list[str]) -> None:
    """``argv``: the machines to turn off (comma-separated), then the ``stencil`` command."""
    off, *command = argv
    for name in off.split(","):
        MACHINES[name]()
    from engine.tools.cli import main as stencil

    stencil(args=command, prog_name="stencil")


if __name__ == "__main__":
    main(sys.argv[1:])
