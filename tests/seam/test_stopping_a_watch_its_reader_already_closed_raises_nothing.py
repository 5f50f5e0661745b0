"""Stopping an informer ends its open watch from another thread (``transport.shutdown``).  The
watch's own thread may have got there first: on a broken read urllib3 closes the connection and
only then releases it, so for a moment the response holds a closed socket.  A stop that lands in
that moment must end quietly: an error there left every informer after it running, retrying
forever in a stopped engine.  The ordering is forced here, over real HTTP: the connection is
closed as the reader closes it, then the response is shut down."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator

import urllib3

from engine.runtime.cluster import transport

HEADERS = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
EVENT = b'{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n'


@contextlib.contextmanager
def open_watch() -> Iterator[urllib3.BaseHTTPResponse]:
    """A streaming response that has sent one event and stays open until the test ends."""
    listener = socket.create_server(("127.0.0.1", 0))
    done = threading.Event()

    def serve() -> None:
        peer, _ = listener.accept()
        with peer:
            peer.recv(65536)
            peer.sendall(HEADERS + b"%x\r\n%s\r\n" % (len(EVENT), EVENT))
            done.wait(10)

    server = threading.Thread(target=serve, daemon=True)
    server.start()
    pool = urllib3.PoolManager()
    port = listener.getsockname()[1]
    response = pool.request("GET", f"http://127.0.0.1:{port}/watch", preload_content=False, retries=False)
    try:
        yield response
    finally:
        done.set()
        server.join(10)
        listener.close()
        pool.clear()


def test_a_stop_after_the_reader_closed_the_connection_raises_nothing() -> None:
    with open_watch() as response:
        assert response.connection is not None
        response.connection.close()  # what urllib3 does on a broken read, before releasing it

        transport.shutdown(response)  # the stopping thread, in between

        response.release_conn()


def test_a_stop_still_ends_a_watch_that_is_being_read() -> None:
    with open_watch() as response:
        seen: list[str] = []
        reader = threading.Thread(target=lambda: seen.extend(kind for kind, _ in transport.events(response)))
        reader.start()
        reader.join(0.5)
        assert reader.is_alive(), "the watch ended before it was stopped"

        transport.shutdown(response)

        reader.join(5)
        assert not reader.is_alive(), "the watch was not ended"
        assert seen == ["ADDED"]
