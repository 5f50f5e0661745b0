"""An HTTP server on 127.0.0.1 that turns requests away as API Priority and Fairness does.

The API server's 429 is not a JSON Status: it is ``http.Error``'s plain text with a
``Retry-After`` header of whole seconds.  The client (``engine.runtime.cluster.kube``) is
pointed at this server over real HTTP, so what is tried is its own reading of the
answer, not a patched transport.  Every request is noted with the moment it arrived.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from kubernetes import client

from engine.runtime.cluster.kube import Kube

TOO_MANY = b"Too many requests, please try again later.\n"


@dataclass
class Throttling:
    """What the server saw: ``(monotonic time, method, path)`` of each request."""

    retry_after: str | None
    seen: list[tuple[float, str, str]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def times(self) -> list[float]:
        with self.lock:
            return [when for when, _, _ in self.seen]


@contextlib.contextmanager
def throttling_server(retry_after: str | None) -> Iterator[tuple[Throttling, Kube]]:
    """A server answering every request 429 in plain text (with ``Retry-After: retry_after``
    unless None), and a ``Kube`` that talks to it."""
    state = Throttling(retry_after)

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            with state.lock:
                state.seen.append((time.monotonic(), self.command, self.path))
            self.send_response(429)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("X-Content-Type-Options", "nosniff")
            if state.retry_after is not None:
                self.send_header("Retry-After", state.retry_after)
            self.send_header("Content-Length", str(len(TOO_MANY)))
            self.end_headers()
            self.wfile.write(TOO_MANY)

        do_POST = do_PATCH = do_PUT = do_DELETE = do_GET

        def log_message(self, format: str, *args: object) -> None:
            pass  # quiet

    with serving(Handler) as kube:
        yield state, kube


@contextlib.contextmanager
def serving(handler: type[BaseHTTPRequestHandler], prefix: str = "", **options: Any) -> Iterator[Kube]:
    """``handler`` serving on a free port of 127.0.0.1, and a ``Kube`` (given ``options``) that
    talks to it over plain HTTP, at ``prefix`` (a proxy's path before the API's)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    configuration = client.Configuration()
    configuration.host = f"http://127.0.0.1:{server.server_address[1]}{prefix}"
    try:
        yield Kube(configuration, **options)
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
