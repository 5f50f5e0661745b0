"""Stencil's side of ``bench.conversion``: a kind's ``/convert`` over HTTPS, as a process of its own.

The review is the engine's own: ``engine.core.webhook.review.answer`` reads the ConversionReview,
converts every object with the kind's conversion (``Conversion.convert``) or fails them all, and
says the status and the review to send, which is written here as compact JSON by the standard
library, as the review is read.  Around it, until ``stencil run`` serves ``/convert`` itself, is
the standard library's threading HTTP/1.1 server with keep-alive.  The collector is tuned as
every ``stencil`` command tunes it.

    python -m bench.conversion_stencil KIND_DIR CERT KEY      # prints "ready https://HOST:PORT"
"""

from __future__ import annotations

import gc
import json
import ssl
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from engine.core.model import kinds
from engine.core.webhook import review
from engine.tools.cli._common import GC_YOUNG_THRESHOLD

CONVERT_PATH = "/convert"


def lookup(kind_dir: Path) -> review.Lookup:
    """The kind of ``kind_dir``'s conversion, by its group and kind, as the webhook finds one."""
    kind = kinds.load_kind(kind_dir)
    if kind.conversion is None:
        raise SystemExit(f"{kind_dir}: the kind has no versions: to convert")
    served = (kind.conversion.group, kind.kind)
    return lambda group, name: kind.conversion if (group, name) == served else None


def encoded(said: dict[str, Any]) -> bytes:
    return json.dumps(said, separators=(",", ":")).encode()


def answer(found: review.Lookup, body: bytes) -> tuple[int, bytes]:
    """The HTTP status and the body that answer the ConversionReview ``body``."""
    status, said = review.answer(body, found)
    return status, encoded(said)


def serve(kind_dir: Path, cert: Path, key: Path, host: str = "127.0.0.1") -> None:
    found = lookup(kind_dir)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as the API server's client uses it
        # The head and the body are two writes: with Nagle's algorithm the body's last segment
        # would wait for the client's delayed acknowledgement of the head, up to 40 ms.
        disable_nagle_algorithm = True

        def do_POST(self) -> None:
            if self.path != CONVERT_PATH:
                self.send_error(404)
                return
            status, out = answer(found, self.rfile.read(int(self.headers.get("Content-Length") or 0)))
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server = ThreadingHTTPServer((host, 0), Handler)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    print(f"ready https://{host}:{server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    gc.set_threshold(GC_YOUNG_THRESHOLD, 20, 100)
    serve(Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]))
