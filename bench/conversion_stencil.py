"""Stencil's side of ``bench.conversion``: a kind's ``/convert`` over HTTPS, as a process of its own.

The smallest webhook around the engine's conversion (``Conversion.convert``): the standard
library's threading HTTP/1.1 server with keep-alive, the ConversionReview read and written with
orjson (the engine's JSON library), each object converted, all or none (one that cannot be is the
review's ``Failure``, as the API server expects).  The collector is tuned as every ``stencil``
command tunes it.

    python -m bench.conversion_stencil KIND_DIR CERT KEY      # prints "ready https://HOST:PORT"
"""

from __future__ import annotations

import gc
import ssl
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import orjson

from engine.core.model import kinds
from engine.core.model.errors import StencilError
from engine.core.model.versioning.conversion import Conversion
from engine.tools.cli._common import GC_YOUNG_THRESHOLD

CONVERT_PATH = "/convert"


def decoded(body: bytes) -> Any:
    return orjson.loads(body)


def encoded(review: dict[str, Any]) -> bytes:
    return orjson.dumps(review)


def answer(conversion: Conversion, body: bytes) -> bytes:
    """The ConversionReview answering the one in ``body``."""
    request = decoded(body)["request"]
    response: dict[str, Any] = {"uid": request["uid"]}
    try:
        desired = request["desiredAPIVersion"]
        response["convertedObjects"] = [conversion.convert(obj, desired) for obj in request["objects"]]
        response["result"] = {"status": "Success"}
    except StencilError as error:
        response["result"] = {"status": "Failure", "message": error.message}
    review = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview", "response": response}
    return encoded(review)


def serve(kind_dir: Path, cert: Path, key: Path, host: str = "127.0.0.1") -> None:
    conversion = kinds.load_kind(kind_dir).conversion
    if conversion is None:
        raise SystemExit(f"{kind_dir}: the kind has no versions: to convert")

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as the API server's client uses it
        # The head and the body are two writes: with Nagle's algorithm the body's last segment
        # would wait for the client's delayed acknowledgement of the head, up to 40 ms.
        disable_nagle_algorithm = True

        def do_POST(self) -> None:
            if self.path != CONVERT_PATH:
                self.send_error(404)
                return
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            try:
                out, status = answer(conversion, body), 200
            except (ValueError, KeyError, TypeError) as error:
                out, status = f"not a ConversionReview: {error}".encode(), 400
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
