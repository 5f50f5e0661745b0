"""The key that makes ``random_string`` secret, and which key a render draws with.

A seed such as ``metadata.uid`` is no secret: whoever may read the parent, or the labels of
any of its children, reads it.  So ``random_string`` does not hash the seed alone; it hashes
it under a key that only the engine holds (a Secret in the engine's namespace, made on its
first start and read by every replica: ``engine.runtime.cluster.seedsecret``).  The seed
picks *which* value, the key makes it one nobody else can compute, and the same seed under
the same key is the same value on every reconcile and after every restart.

The key is handed to the render that needs it (``keyed``, which the door puts around a
render) and found by ``random_string`` through ``current``, as a budget is: a function deep
inside Jinja cannot be given arguments by the engine.  Outside any ``keyed`` block, offline
(``stencil render``, ``lint``, ``test``), there is no engine key, and ``OFFLINE`` is used: a
fixed key, written here for anyone to read, so offline values are reproducible, are *not*
secret, and differ from the values the engine renders live.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar

SECRET_NAME = "stencil-seed-key"  # the Secret that holds it, in the engine's namespace
SIZE = 32  # bytes of a key the engine makes (BLAKE2b takes keys of up to 64)

# Public by design: what offline renders draw with.  Never the key of a running engine.
OFFLINE = b"stencil offline seed key: public, its values are not secret"

_CURRENT: ContextVar[bytes] = ContextVar("stencil_seed_key", default=OFFLINE)


def current() -> bytes:
    """The key of the render running now: the engine's inside ``keyed``, else ``OFFLINE``."""
    return _CURRENT.get()


@contextlib.contextmanager
def keyed(key: bytes) -> Iterator[None]:
    """Run a render with ``random_string`` drawing under ``key``."""
    if not 1 <= len(key) <= 64:
        raise ValueError(f"a seed key is 1 to 64 bytes, not {len(key)}")
    token = _CURRENT.set(key)
    try:
        yield
    finally:
        _CURRENT.reset(token)
