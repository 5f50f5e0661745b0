"""Where Stencil's conversion webhook spends its time: py-spy's samples of the server process.

``bench.conversion --profile`` drives the Stencil server once more after the rounds while
``py-spy record --gil`` samples it (the thread holding the interpreter lock alone: a thread
waiting on its socket is not working), and this names each sample by what it was doing
(``CATEGORIES``): a mapping's Jinja expression, a deep copy, the schema's pruning, the review's
JSON, HTTP, the rest of the conversion.  What runs without the lock (TLS's encryption, the
socket's system calls) is not sampled: ``in_process`` tells it apart by timing the answer alone.
Printed: each share of the samples, and the functions that were themselves running most often.
A line that makes a system call shows far more than it takes:
``budgets.limits.Clock`` reading the thread's CPU clock is some 10 % of the samples, yet with the
wall clock read instead an evaluation takes no less time.
"""

from __future__ import annotations

import collections
import gc
import json
import re
import shutil
import subprocess
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

from bench import conversion_stencil
from engine.tools.cli._common import GC_YOUNG_THRESHOLD

# (what, file the frame is in, function or None for any), in order: a sample is the first of these
# that any frame of it is in.  So JSON under the conversion's annotation is the annotation's, and
# HTTP, at the root of every sample, is what is left when nothing above matched.
CATEGORIES = (
    ("Jinja expressions (computed mappings)", "language/expressions.py", "Expression.evaluate"),
    ("copy.deepcopy", "copy.py", "deepcopy"),
    ("schema pruning (structural.kept)", "crds/structural.py", "kept"),
    ("the annotation (read, written)", "versioning/conversion.py", "_kept"),
    ("the annotation (read, written)", "versioning/conversion.py", "_with"),
    ("round trip compared (_differences)", "versioning/conversion.py", "_differences"),
    ("the rest of conversion.py", "versioning/conversion.py", None),
    ("the review read (JSON decoded, checked)", "webhook/review.py", "read"),
    ("the rest of the review", "webhook/review.py", None),
    ("the review's JSON encoded", "conversion_stencil.py", "encoded"),
    ("TLS and sockets", "ssl.py", None),
    ("TLS and sockets", "socket.py", None),
    ("HTTP", "http/server.py", None),
    ("HTTP", "socketserver.py", None),
    ("HTTP", "telemetry/httpserver.py", None),
)
_FRAME = re.compile(r"^(?P<function>.*) \((?P<file>[^()]*?)(?::(?P<line>\d+))?\)$")


def available() -> bool:
    return shutil.which("py-spy") is not None


def record(pid: int, seconds: float, out: Path) -> subprocess.Popen[bytes]:
    """``py-spy record`` of ``pid`` for ``seconds`` into ``out`` (collapsed stacks), started."""
    argv = ["py-spy", "record", "-p", str(pid), "-d", str(max(1, round(seconds))), "-r", "200", "--gil"]
    return subprocess.Popen(
        [*argv, "-f", "raw", "-o", str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )


def frames(stack: str) -> list[tuple[str, str]]:
    """(function, file) of each frame of one collapsed stack, outermost first."""
    found = []
    for frame in stack.split(";"):
        match = _FRAME.match(frame.strip())
        if match:
            found.append((match["function"], match["file"]))
    return found


def category(stack: list[tuple[str, str]]) -> str:
    for what, where, named in CATEGORIES:
        for function, file in stack:
            if file.endswith(where) and (
                named is None or function == named or function.endswith("." + named)
            ):
                return what
    return "other"


def samples(text: str) -> Iterable[tuple[list[tuple[str, str]], int]]:
    for line in text.splitlines():
        stack, _, count = line.rpartition(" ")
        if stack and count.isdigit():
            yield frames(stack), int(count)


def summary(text: str, top: int = 10) -> str:
    """Each category's share of the samples, then the ``top`` innermost functions."""
    by_category: collections.Counter[str] = collections.Counter()
    by_function: collections.Counter[str] = collections.Counter()
    for stack, count in samples(text):
        if not stack:
            continue
        by_category[category(stack)] += count
        function, file = stack[-1]
        by_function[f"{function} ({file})"] += count
    total = sum(by_category.values())
    if not total:
        return "py-spy took no samples"
    lines = [f"{total:,} samples of the Stencil server's running threads:"]
    lines += [f"  {n / total:6.1%}  {what}" for what, n in by_category.most_common()]
    lines.append(f"the {top} functions most often running themselves:")
    lines += [f"  {n / total:6.1%}  {what}" for what, n in by_function.most_common(top)]
    return "\n".join(lines)


def in_process(kind_dir: Path, bodies: Sequence[bytes], server_ms: float, rounds: int = 3) -> str:
    """What the server's CPU per request is made of: the answer (the review read, each object
    converted, the answer encoded) and its JSON alone, timed in this process (best of
    ``rounds``), and the rest, TLS and HTTP, the difference."""
    found = conversion_stencil.lookup(kind_dir)
    before = gc.get_threshold()
    gc.set_threshold(GC_YOUNG_THRESHOLD, 20, 100)  # as the server runs
    try:
        answered, json_only = float("inf"), float("inf")
        for _ in range(rounds):
            started = time.process_time()
            answers = [conversion_stencil.answer(found, body)[1] for body in bodies]
            answered = min(answered, time.process_time() - started)
            started = time.process_time()
            for body, out in zip(bodies, answers, strict=True):
                conversion_stencil.encoded(json.loads(out))
                json.loads(body)
            json_only = min(json_only, time.process_time() - started)
    finally:
        gc.set_threshold(*before)
    answer_ms, json_ms = answered / len(bodies) * 1000, json_only / len(bodies) * 1000
    return (
        f"CPU ms per request: {server_ms:.2f} in the server; in this process {answer_ms:.2f} to answer "
        f"it, {json_ms:.2f} of them for its JSON (decoded, encoded), {answer_ms - json_ms:.2f} to "
        f"convert its objects; the rest, {server_ms - answer_ms:.2f}, is TLS and HTTP"
    )
