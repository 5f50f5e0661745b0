"""How deep an object the engine reads: JSON nested past a bound is cut there and the object marked.

The API server stores objects nested far deeper than a JSON library will go: orjson decodes
at most 1,024 levels and encodes at most 254, the standard library's decoder recurses in C
until the interpreter's recursion limit.  A tenant's CR nested 1,100 levels deep would then
fail the decoding of its whole watch stream or listing (every parent of its kind unserved)
and the cache's encoding of it (the informer retrying forever).  Instead:

- ``loads`` decodes an answer or a watch event; one orjson refuses is decoded again with
  every value nested deeper than ``CUT`` levels replaced by a marker string, found by a scan
  that never recurses;
- ``bounded`` (the cache's encoder calls it on an object orjson cannot encode) replaces
  every value deeper than ``LIMIT`` levels with null and marks the object with ``MARK``, a
  top-level key that says how deep it was;
- ``refusal`` is the error a marked parent gets instead of being rendered: its condition
  and Event, nothing else.  The object's name, namespace, uid and resourceVersion stay, so
  the cache still tracks it and its deletion.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

from engine.core.model import errors

LIMIT = 250  # levels of an object the engine reads (orjson encodes 254)
CUT = 512  # levels of a document decoded before the scan cuts (orjson decodes 1,024)
MARK = "stencil.dev/too-deep"  # a top-level key on a cached object cut at LIMIT: how deep it was
_BEYOND = "\x00stencil.dev/beyond:"  # what the scan leaves of a value past CUT, and its levels
_TOKENS = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)


def loads(data: bytes) -> Any:
    """JSON decoded; values nested deeper than ``CUT`` levels become marker strings."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        cut = _cut(data)
        if cut is None:
            raise  # not too deep: malformed
        return orjson.loads(cut)


def _cut(data: bytes) -> bytes | None:
    """``data`` with every value opened deeper than ``CUT`` levels replaced by a string that
    says how many levels the deepest of them had; None if nothing is that deep."""
    depth = deepest = 0
    pieces: list[bytes] = []
    kept = 0  # data before this offset is in pieces
    start = -1  # where the value being cut began
    for token in _TOKENS.finditer(data):
        char = token.group()[:1]
        if char in b"[{":
            depth += 1
            deepest = max(deepest, depth)
            if depth == CUT + 1:
                start = token.start()
        elif char in b"]}":
            depth -= 1
            if depth == CUT:
                pieces += [data[kept:start], b"\x00"]  # a placeholder for the marker string
                kept = token.end()
    if deepest <= CUT:
        return None
    marker = orjson.dumps(f"{_BEYOND}{deepest - CUT}")  # the levels of the deepest value cut
    return b"".join(piece if piece != b"\x00" else marker for piece in [*pieces, data[kept:]])


def bounded(obj: dict[str, Any]) -> dict[str, Any]:
    """``obj`` with every value deeper than ``LIMIT`` levels set to null and ``MARK`` saying
    how deep it was; walked without recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(obj, 1)]
    while stack:
        value, depth = stack.pop()
        deepest = max(deepest, depth)
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for key, item in list(items):
            if isinstance(item, str) and item.startswith(_BEYOND):
                deepest = max(deepest, depth + int(item[len(_BEYOND) :]))
                value[key] = None
            elif isinstance(item, dict | list):
                stack.append((item, depth + 1))  # still walked, to say how deep the object is
                if depth >= LIMIT:
                    value[key] = None
    return {**obj, MARK: deepest}


def refusal(obj: dict[str, Any]) -> errors.StencilError | None:
    """The terminal error of an object ``bounded`` marked; None for any other."""
    depth = obj.get(MARK)
    if depth is None:
        return None
    return errors.RenderError(
        f"the object is nested too deeply ({depth} levels; at most {LIMIT}): it is not rendered",
        field="spec",
    )
