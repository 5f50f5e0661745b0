"""A watch waits a bounded time for the server's answer, and then as long as the watch lasts.

After a restart under priority and fairness, a server can take a watch's connection and hold
the request without a word; a read timeout as long as the watch itself (``timeoutSeconds`` plus
slack, five and a half minutes) left the informer blocked on that answer, saying nothing.  The
status line must come within ``answer_timeout`` (else ``Unreachable``, retried like a refused
connection); once it has come, events may be further apart than that: a quiet watch is not a
failing one.  The client talks real HTTP to a server on 127.0.0.1 in both cases.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler

import pytest

from engine.core.model import errors
from engine.runtime.cluster.kube import Kube, Resource
from tests.unit._throttling import serving

CONFIGMAPS = Resource("", "v1", "ConfigMap", "configmaps", True)
ANSWER = 0.5  # the time to answer these tests give the client
EVENT = b'{"type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":"2"}}}\n'


@contextlib.contextmanager
def server(answers: bool) -> Iterator[Kube]:
    """A server that holds every request until released (``answers`` False), or answers at once
    with a watch that sends its one event after three times ``ANSWER``."""
    release = threading.Event()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            if not answers:
                release.wait(8 * ANSWER)
                self.close_connection = True  # and says nothing, ever
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.wfile.flush()
            time.sleep(3 * ANSWER)
            self.wfile.write(b"%x\r\n%s\r\n0\r\n\r\n" % (len(EVENT), EVENT))
            self.wfile.flush()

        def log_message(self, format: str, *args: object) -> None:
            pass  # quiet

    try:
        with serving(Handler, answer_timeout=ANSWER) as kube:
            yield kube
    finally:
        release.set()  # before the server's shutdown waits for the held request


def test_a_server_that_holds_the_watch_without_answering_is_given_up_within_the_answer_timeout() -> None:
    with server(answers=False) as kube:
        started = time.monotonic()
        with pytest.raises(errors.Unreachable):
            list(kube.watch(CONFIGMAPS, "1", "ns", timeout_seconds=300))
        assert time.monotonic() - started < 4 * ANSWER


def test_an_accepted_watch_waits_for_events_longer_than_the_answer_timeout() -> None:
    with server(answers=True) as kube:
        events = list(kube.watch(CONFIGMAPS, "1", "ns", timeout_seconds=300))
    assert [(t, o["metadata"]["name"]) for t, o in events] == [("ADDED", "a")]
