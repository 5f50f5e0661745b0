"""``stencil run``'s tracer with only ``OTEL_EXPORTER_OTLP_ENDPOINT`` set: the SDK configures
itself from the environment and sends the spans over OTLP/HTTP to ``<endpoint>/v1/traces``
(the exporter the ``otel`` extra installs), with the service name the environment gives."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SPAN = """
from opentelemetry import trace
from engine.runtime.telemetry import tracing

tracer = tracing.from_environment()
with tracer.span("reconcile", kind="widget", name="w"):
    with tracer.span("render"):
        pass
trace.get_tracer_provider().shutdown()  # flush what the batch holds, as the process's exit does
"""


@pytest.fixture
def collector() -> Iterator[tuple[str, list[tuple[str, bytes]]]]:
    """An OTLP/HTTP endpoint that keeps what it is sent: its address and the (path, body) pairs."""
    received: list[tuple[str, bytes]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            received.append((self.path, self.rfile.read(int(self.headers["Content-Length"]))))
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", received
    finally:
        server.shutdown()
        server.server_close()


def test_the_spans_reach_the_endpoint(collector: tuple[str, list[tuple[str, bytes]]]) -> None:
    endpoint, received = collector
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    env |= {"PYTHONPATH": str(ROOT), "OTEL_EXPORTER_OTLP_ENDPOINT": endpoint}
    env["OTEL_SERVICE_NAME"] = "stencil-a"
    done = subprocess.run(
        [sys.executable, "-c", SPAN], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr

    assert [path for path, _ in received] == ["/v1/traces"]
    body = received[0][1]
    assert b"reconcile" in body and b"render" in body and b"stencil.kind" in body and b"stencil-a" in body
