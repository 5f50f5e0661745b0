"""Tokens: each value a template prints is recorded in its ``Run``, and an opaque token written instead.

Every ``{{ ... }}`` goes through the environment's ``finalize``
(``engine.core.templating.sandbox``), which records the value in the current ``Run``
and writes an opaque token instead (``stencilv<nonce>x<n>z``, with a random nonce per
render so no value can forge one); ``engine.core.templating.substitution`` puts the
values back after YAML parsing.  A ``Run`` is also the template's budget: the clock
it is rendered against, and the characters of output (text plus values) it may
still write.
"""

from __future__ import annotations

import json
import math
import os
import re
import threading
from collections.abc import Iterable, Mapping, Set
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from jinja2.runtime import Undefined

from engine.core.model import budgets
from engine.core.model.language import documents, library
from engine.core.templating.context import View


@dataclass(frozen=True)
class Limits:
    """Per template: seconds of the rendering thread's CPU time (its budget's clock), and
    characters of output (text plus interpolated values)."""

    seconds: float = 1.0
    output_chars: int = 1 << 20


DEFAULT_LIMITS = Limits()


class Unplaceable(Exception):
    """A template printed something that is not JSON data (a function, a loop object...)."""


CURRENT_RUN: ContextVar[Run] = ContextVar("stencil_render")

_JSON_SCALARS = (str, int, float, bool, type(None))


# Every run's tokens, whatever their nonce: compiled once, since compiling a pattern per run
# cost more than the rest of rendering.  A match counts only if its nonce is the run's own
# (``Run.index``): text a template author wrote in the token's shape stays text.
TOKEN = re.compile(r"stencilv([0-9a-f]{20})x(\d+)z")
NONCE_BYTES = 10


class _Nonces:
    """Unpredictable nonces, read from the system's random source a few hundred at a time: a
    read per render made every render wait on a system call (and hand over the interpreter
    lock to any thread that wanted it) for 10 bytes."""

    def __init__(self, batch: int = 256) -> None:
        self._batch = batch
        self._pool: list[str] = []
        self._lock = threading.Lock()
        os.register_at_fork(after_in_child=self._pool.clear)  # a child process draws its own

    def next(self) -> str:
        with self._lock:
            if not self._pool:
                block = os.urandom(NONCE_BYTES * self._batch)
                self._pool.extend(block[i : i + NONCE_BYTES].hex() for i in range(0, len(block), NONCE_BYTES))
            return self._pool.pop()


_NONCES = _Nonces()


class Run:
    """One template's rendering: the values behind its tokens, and what is left of its budget."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.nonce = _NONCES.next()
        self.prefix = f"stencilv{self.nonce}x"
        self.values: list[Any] = []
        self.used: set[int] = set()
        self.remaining = limits.output_chars
        # What the template's growing operations may build, charged before each is run: as much
        # again as its output may hold, apart from it.
        self.budget = budgets.Budget(budgets.Limits(seconds=limits.seconds, chars=limits.output_chars))
        # How many times a filter has read values out of text that holds their tokens: a
        # ``{% filter %}`` block whose filter did so gives a value, not text (``block_output``).
        self.reveals = 0
        # The values that are text a macro, a ``{% set %}`` block or ``caller()`` captured: printed
        # with ``{{ }}`` as a whole document, that text is a string, never the template's YAML.
        self.captured: set[int] = set()

    def tick(self) -> None:
        if self.budget.clock.out():  # the thread's CPU time, as every budget counts it
            took = f"rendering took longer than {self.limits.seconds:g}s (an endless loop?)"
            raise budgets.OverBudget(took)

    def charge(self, chars: int) -> None:
        self.remaining -= chars
        if self.remaining < 0:
            raise budgets.OverBudget(f"the output is larger than {self.limits.output_chars} characters")

    def placeholder(self, value: Any) -> str:
        """Record ``value`` (as JSON data) and return the token that stands for it."""
        self.values.append(self.plain(value, reveal=False))
        return f"{self.prefix}{len(self.values) - 1}z"

    def take(self, index: int) -> Any:
        """The value of token ``index``; a copy if the token was already used (a tree shares nothing)."""
        value = self.values[index]
        if index in self.used:
            return _copy(value)
        self.used.add(index)
        return value

    def text(self, index: int) -> str:
        return _text(self.values[index])

    def index(self, match: re.Match[str]) -> int | None:
        """The value index of a ``TOKEN`` match, if the token is this run's."""
        return int(match.group(2)) if match.group(1) == self.nonce else None

    def tokens(self, text: str) -> list[re.Match[str]]:
        """This run's tokens in ``text``."""
        if self.prefix not in text:
            return []
        return [match for match in TOKEN.finditer(text) if match.group(1) == self.nonce]

    def resolve(self, text: str, *, reveal: bool = True) -> str:
        """``text`` with every token replaced by its value's string form, in one pass.

        Counted as a reveal unless ``reveal`` is false: where the result becomes a
        token again (a placeholder) or a captured block's value (``_Text``).
        """
        if self.prefix not in text:
            return text
        resolved = TOKEN.sub(self._text_of, text)
        if reveal and resolved != text:
            self.reveals += 1
        return resolved

    def blank(self, text: str) -> str:
        """``text`` with every token shown as ``{{…}}``: for a message that must not quote a value."""
        if self.prefix not in text:
            return text
        return TOKEN.sub(lambda m: "{{…}}" if m.group(1) == self.nonce else m.group(0), text)

    def _text_of(self, match: re.Match[str]) -> str:
        index = self.index(match)
        return match.group(0) if index is None else self.text(index)

    def plain(self, value: Any, *, reveal: bool = True) -> Any:
        """``value`` as a fresh tree of JSON data, tokens in its strings resolved, its size charged."""
        if isinstance(value, View):
            value = value._data
        value = library.data(value)  # a quantity is placed as its canonical text
        if isinstance(value, str):
            self.charge(len(value))
            return self.resolve(str(value), reveal=reveal)  # str() drops a Markup subclass
        if value is None or isinstance(value, bool | int | float):
            self.charge(8)
            if isinstance(value, float) and not math.isfinite(value):
                raise Unplaceable(f"{value} is not a JSON number")
            if (
                isinstance(value, int)
                and not isinstance(value, bool)
                and not (documents.INT64_MIN <= value <= documents.INT64_MAX)
            ):
                raise Unplaceable(
                    "an integer beyond int64 cannot be placed in a manifest (the API server "
                    "would keep only an inexact float of it)"
                )
            return value
        if isinstance(value, Undefined):
            str(value)  # raises, naming what is missing
            return self.plain(None)  # the else an inline if left out: missing data reads as none
        if isinstance(value, Mapping):
            self.charge(2)
            return {self._key(k, reveal): self.plain(v, reveal=reveal) for k, v in value.items()}
        if isinstance(value, Set):
            return self.plain(sorted(value), reveal=reveal)
        if isinstance(value, Iterable):  # lists, tuples, and what filters such as map() return
            self.charge(2)
            return [self.plain(v, reveal=reveal) for v in value]
        raise Unplaceable(f"a {type(value).__name__} cannot be placed in a manifest")

    def _key(self, key: Any, reveal: bool) -> Any:
        if isinstance(key, str):
            return self.resolve(str(key), reveal=reveal)
        if isinstance(key, _JSON_SCALARS):
            return key
        raise Unplaceable(f"a {type(key).__name__} cannot be a mapping key")


class running:
    """Render one template as a ``Run`` of its own, whose budget its filters charge too (a class,
    not a generator: it is entered once per template, and ``contextlib`` would double its cost)."""

    def __init__(self, limits: Limits) -> None:
        self.run = Run(limits)

    def __enter__(self) -> Run:
        self.tokens = CURRENT_RUN.set(self.run), budgets.CURRENT.set(self.run.budget)
        return self.run

    def __exit__(self, *_: object) -> None:
        run, budget = self.tokens
        budgets.CURRENT.reset(budget)
        CURRENT_RUN.reset(run)


def _text(value: Any) -> str:
    """A value's string form where it is part of a longer string: itself for strings, else JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value
