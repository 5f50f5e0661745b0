"""The running budget: one evaluation's limits, what is left of them, and which budget is in force.

A template or a status rule is one evaluation; each runs under a ``Budget`` of its own, made from
``Limits`` when it starts (``running``, or the template sandbox's own run) and found by every check
through ``CURRENT``, so a filter or operator deep inside Jinja charges the evaluation that called it
without being handed it.  The sizes charged are estimated in ``sizes`` and
``filters``; this module only keeps the account.

    StencilError
    └── BudgetError
        ├── OverBudget    an operation would build more, or run longer, than the budget allows
        └── NotAllowed    an operation that is not on the allowlist
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass

from engine.core.model.errors import StencilError


class BudgetError(StencilError):
    terminal = True


class OverBudget(BudgetError):
    reason = "OverBudget"


class NotAllowed(BudgetError):
    reason = "NotAllowed"


@dataclass(frozen=True)
class Limits:
    """One evaluation's budget: seconds of its thread's CPU time, characters (or items, or bytes)
    that its growing operations may build in all, and bits of any integer it computes."""

    seconds: float = 1.0
    chars: int = 1 << 20
    int_bits: int = 1 << 16


DEFAULT_LIMITS = Limits()


class Clock:
    """``seconds`` of the evaluating thread's own CPU time, from now.

    An evaluation is charged the time it runs, not the time it waits: for the interpreter lock
    while another worker decodes a large parent, or for a core on a busy node.  Measured on the
    wall clock, a template that takes a millisecond alone overran a one-second budget on a loaded
    machine and its parent was held as if it looped without end.  The thread's CPU clock costs a
    system call, the wall clock does not: ``out`` reads the CPU clock only once the wall clock
    says the seconds could have been used, and then sets the next look at the earliest moment
    the rest could be."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._started = time.thread_time()
        self._look_at = time.monotonic() + seconds

    def out(self) -> bool:
        """Whether the evaluation has used its seconds."""
        if time.monotonic() <= self._look_at:
            return False
        used = time.thread_time() - self._started
        if used >= self.seconds:
            return True
        self._look_at = time.monotonic() + self.seconds - used
        return False


class Budget:
    """What is left to one evaluation: its time and the characters it may still build."""

    def __init__(self, limits: Limits = DEFAULT_LIMITS) -> None:
        self.limits = limits
        self.clock = Clock(limits.seconds)
        self.left = limits.chars

    def tick(self) -> None:
        if self.clock.out():
            raise OverBudget(f"took longer than {self.limits.seconds:g}s")

    def charge(self, size: int, what: str) -> None:
        """Take ``size`` from what is left, or refuse ``what`` before it is built."""
        if size > self.left:
            raise OverBudget(
                f"{what} would build {size} characters or items, more than the "
                f"{self.left} left of this evaluation's {self.limits.chars}"
            )
        self.left -= size

    def bits(self, bits: int, what: str) -> None:
        if bits > self.limits.int_bits:
            raise OverBudget(
                f"{what} would make an integer of about {bits} bits, more than {self.limits.int_bits}"
            )
        self.charge(bits // 3 + 1, what)


CURRENT: ContextVar[Budget] = ContextVar("stencil_budget")


def current() -> Budget:
    """The budget of the evaluation running now (a fresh default one outside any)."""
    budget = CURRENT.get(None)
    return budget if budget is not None else Budget()


@contextlib.contextmanager
def running(limits: Limits = DEFAULT_LIMITS) -> Iterator[Budget]:
    """Run an evaluation under a budget of its own."""
    budget = Budget(limits)
    token = CURRENT.set(budget)
    try:
        yield budget
    finally:
        CURRENT.reset(token)
