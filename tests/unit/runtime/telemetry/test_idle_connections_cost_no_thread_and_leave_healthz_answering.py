"""Two thousand idle connections to a probe or metrics port, plain or TLS, cost no thread and a
few MiB, and ``/healthz`` keeps answering; a client that sends half a request head is closed at
the head deadline, and a head over the size cap gets 431."""

from __future__ import annotations

import http.client
import os
import resource
import socket
import ssl
import threading
from collections.abc import Iterator

import pytest

from engine.runtime.telemetry import delegation, httpserver, observability

FLOOD = 2000
DEADLINE = 0.3


def rss() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.fixture(autouse=True)
def descriptors() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 2 * FLOOD + 256  # the clients' ends and, were there no cap, the server's
    if soft < wanted:
        if hard != resource.RLIM_INFINITY and hard < wanted:
            pytest.skip(f"needs {wanted} file descriptors, the hard limit is {hard}")
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))


@pytest.fixture(params=["plain", "tls"])
def server(request: pytest.FixtureRequest) -> Iterator[tuple[int, ssl.SSLContext | None]]:
    tls = delegation.tls_context(None, ["localhost"]) if request.param == "tls" else None
    served = observability.serve(
        observability.Metrics(), observability.Health(), "127.0.0.1", 0, tls=tls, head_timeout=DEADLINE
    )
    client = None
    if tls is not None:
        client = ssl.create_default_context()
        client.check_hostname, client.verify_mode = False, ssl.CERT_NONE  # self-signed
    try:
        yield served.server_address[1], client
    finally:
        served.shutdown()
        served.server_close()


def healthz(port: int, client: ssl.SSLContext | None) -> int:
    connection: http.client.HTTPConnection
    if client is None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
    else:
        connection = http.client.HTTPSConnection("127.0.0.1", port, timeout=2, context=client)
    try:
        connection.request("GET", "/healthz")
        return connection.getresponse().status
    finally:
        connection.close()


def connect(port: int, client: ssl.SSLContext | None) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    return sock if client is None else client.wrap_socket(sock)


def answer(sock: socket.socket) -> bytes:
    """What the server sends until it closes the connection (a reset counts as closed)."""
    received = b""
    try:
        while chunk := sock.recv(65536):
            received += chunk
    except (ConnectionResetError, ssl.SSLEOFError):
        pass
    return received


def test_an_idle_flood_costs_no_thread_and_a_few_mib_and_healthz_answers(
    server: tuple[int, ssl.SSLContext | None],
) -> None:
    port, client = server
    assert healthz(port, client) == 200
    threads, memory = threading.active_count(), rss()

    flood = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(FLOOD)]
    try:
        during = healthz(port, client)  # accepted after every socket of the flood
        grown_threads, grown_memory = threading.active_count() - threads, rss() - memory
    finally:
        for sock in flood:
            sock.close()

    assert during == 200
    assert grown_threads <= 2
    # A thread per socket costs tens of KiB each (over 50 MiB here); the clients' own sockets
    # and the server's capped connections fit in a few.
    assert grown_memory < 16 * 2**20, f"grew {grown_memory / 2**20:.1f} MiB"


def test_a_client_that_sends_half_a_head_is_closed_at_the_deadline(
    server: tuple[int, ssl.SSLContext | None],
) -> None:
    port, client = server
    with connect(port, client) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n")

        assert answer(sock) == b""  # closed, well before the client's own 5 s


def test_a_head_over_the_cap_gets_431(server: tuple[int, ssl.SSLContext | None]) -> None:
    port, client = server
    line = b"X-Filler: " + b"a" * 990 + b"\r\n"
    with connect(port, client) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\n" + line * (httpserver.HEAD_LIMIT // len(line) + 1))

        received = answer(sock)

    assert received == b"" or received.startswith(b"HTTP/1.1 431 ")
