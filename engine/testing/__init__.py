"""Testing Stencil kinds (and Stencil itself) against a real API server.

The pytest plugin in ``engine.testing.plugin`` is registered as an entry
point, so installing the package is enough to get the ``local_cluster``,
``kube`` and ``namespace`` fixtures.  ``wait_until`` is here because every
test against a live cluster waits for something a controller does
asynchronously, and a fixed ``sleep`` is either flaky or slow.
``write_requests`` reads the API server's own count of write requests, the
one witness of "no writes" that does not depend on the engine's honesty.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from engine.kube import Kube

T = TypeVar("T")

__all__ = ["wait_until", "write_requests"]

WRITE_VERBS = frozenset({"POST", "PUT", "PATCH", "APPLY", "DELETE", "DELETECOLLECTION"})
_SAMPLE = re.compile(r"^apiserver_request_total\{(?P<labels>[^}]*)\} (?P<value>\S+)$")
_LABEL = re.compile(r'(\w+)="([^"]*)"')


def write_requests(kube: Kube) -> Counter[str]:
    """Write requests the API server has served, by ``"VERB resource[/subresource]"``.

    Read from its ``apiserver_request_total`` metric; server-side apply is verb ``APPLY``.
    """
    counts: Counter[str] = Counter()
    for line in kube.metrics().splitlines():
        match = _SAMPLE.match(line)
        if not match:
            continue
        labels = dict(_LABEL.findall(match["labels"]))
        if labels.get("verb") in WRITE_VERBS:
            sub = f"/{labels['subresource']}" if labels.get("subresource") else ""
            counts[f"{labels['verb']} {labels.get('resource', '?')}{sub}"] += int(float(match["value"]))
    return counts


def wait_until(
    probe: Callable[[], T | None], *, timeout: float = 60.0, interval: float = 0.2, what: str = "condition"
) -> T:
    """Call ``probe`` until it returns something truthy, and return that; or fail after ``timeout``."""
    deadline = time.monotonic() + timeout
    last: T | None = None
    while True:
        last = probe()
        if last:
            return last
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what} (last: {last!r})")
        time.sleep(interval)
