"""A server's body limit is its own (the webhook's reviews are megabytes, a probe's none): a body
up to it is read as it comes while other requests are answered, one over it gets 413 before it is
sent, one of no stated length 411; a client that sends its body slowly is closed at the same
deadline as one that sends half a head; the bodies held at once stay within the buffer bound;
a method the server does not serve gets 501; and a renewed certificate is taken by the next
connection without a restart."""

from __future__ import annotations

import http.client
import socket
import ssl
import threading
import time
from collections.abc import Iterator
from http import HTTPStatus

import pytest

from engine.runtime.telemetry import delegation, httpserver

MIB = 2**20
DEADLINE = 0.5


HEAD_TIMEOUT = 5.0


def _respond(request: httpserver.Request) -> httpserver.Response:
    return httpserver.Response(HTTPStatus.OK, f"{request.method} {len(request.body)}".encode())


@pytest.fixture
def server() -> Iterator[httpserver.Server]:
    served = httpserver.Server(
        ("127.0.0.1", 0),
        _respond,
        head_timeout=DEADLINE,
        body_limit=3 * MIB,
        buffer_limit=4 * MIB,
        methods=frozenset({"POST"}),
    )
    served.start()
    try:
        yield served
    finally:
        served.shutdown()
        served.server_close()


def _connect(server: httpserver.Server) -> socket.socket:
    return socket.create_connection(server.server_address, timeout=5)


def _answer(sock: socket.socket) -> bytes:
    received = b""
    try:
        while chunk := sock.recv(65536):
            received += chunk
    except ConnectionResetError:
        pass
    return received


def _post(server: httpserver.Server, body: bytes) -> tuple[int, bytes]:
    connection = http.client.HTTPConnection(*server.server_address, timeout=5)
    try:
        connection.request("POST", "/convert", body=body)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def _head(length: int) -> bytes:
    return f"POST /convert HTTP/1.1\r\nHost: x\r\nContent-Length: {length}\r\n\r\n".encode()


def test_a_body_of_megabytes_is_read_whole(server: httpserver.Server) -> None:
    assert _post(server, b"x" * (3 * MIB)) == (200, f"POST {3 * MIB}".encode())


def test_a_body_over_the_limit_gets_413_before_it_is_sent(server: httpserver.Server) -> None:
    with _connect(server) as sock:
        sock.sendall(_head(3 * MIB + 1))  # and not one byte of the body

        assert _answer(sock).startswith(b"HTTP/1.1 413 ")


def test_a_body_of_no_stated_length_gets_411(server: httpserver.Server) -> None:
    with _connect(server) as sock:
        sock.sendall(b"POST /convert HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n")

        assert _answer(sock).startswith(b"HTTP/1.1 411 ")


def test_a_method_the_server_does_not_serve_gets_501(server: httpserver.Server) -> None:
    with _connect(server) as sock:
        sock.sendall(b"GET /convert HTTP/1.1\r\nHost: x\r\n\r\n")

        assert _answer(sock).startswith(b"HTTP/1.1 501 ")


def test_a_client_that_sends_its_body_slowly_is_closed_at_the_deadline_and_others_are_answered(
    server: httpserver.Server,
) -> None:
    with _connect(server) as slow:
        slow.sendall(_head(2 * MIB) + b"x" * 1000)
        began = time.monotonic()
        answered_meanwhile = _post(server, b"y" * MIB)

        assert _answer(slow) == b""  # closed, with no answer, at the server's deadline
        waited = time.monotonic() - began

    assert answered_meanwhile == (200, f"POST {MIB}".encode())
    assert DEADLINE * 0.5 < waited < DEADLINE + 2


def test_a_large_body_arriving_in_pieces_holds_up_no_other_request(server: httpserver.Server) -> None:
    done: list[bytes] = []
    release = threading.Event()

    def trickle() -> None:
        with _connect(server) as sock:
            sock.sendall(_head(MIB) + b"x" * (MIB // 2))
            release.wait(5)
            sock.sendall(b"x" * (MIB // 2))
            done.append(_answer(sock))

    sender = threading.Thread(target=trickle)
    sender.start()
    try:
        time.sleep(0.05)  # the first half is in
        began = time.monotonic()
        short = _post(server, b"{}")
        took = time.monotonic() - began
    finally:
        release.set()
        sender.join()

    assert short == (200, b"POST 2") and took < DEADLINE
    assert done and done[0].startswith(b"HTTP/1.1 200 ") and done[0].endswith(f"POST {MIB}".encode())


def test_bodies_past_the_buffer_bound_close_the_oldest_sender() -> None:
    served = httpserver.Server(
        ("127.0.0.1", 0),
        _respond,
        head_timeout=HEAD_TIMEOUT,
        body_limit=3 * MIB,
        buffer_limit=4 * MIB,
        methods=frozenset({"POST"}),
    )
    served.start()  # a deadline far off: only the bound can close the first sender soon
    try:
        with _connect(served) as first, _connect(served) as second:
            first.sendall(_head(2 * MIB) + b"x")  # 2 MiB of the 4 reserved
            time.sleep(0.05)
            second.sendall(_head(2 * MIB) + b"x")  # 4 of 4
            time.sleep(0.05)

            assert _post(served, b"z" * MIB) == (200, f"POST {MIB}".encode())  # room made
            first.settimeout(1)
            assert _answer(first) == b""  # closed for it, long before its deadline
            second.sendall(b"x" * (2 * MIB - 1))
            assert _answer(second).startswith(b"HTTP/1.1 200 ")
    finally:
        served.shutdown()
        served.server_close()


def test_a_body_bigger_than_the_buffer_bound_alone_gets_503() -> None:
    served = httpserver.Server(("127.0.0.1", 0), _respond, body_limit=3 * MIB, buffer_limit=MIB)
    served.start()
    try:
        with _connect(served) as sock:
            sock.sendall(_head(2 * MIB))

            assert _answer(sock).startswith(b"HTTP/1.1 503 ")
    finally:
        served.shutdown()
        served.server_close()


def _served_certificate(server: httpserver.Server) -> bytes:
    client = ssl.create_default_context()
    client.check_hostname, client.verify_mode = False, ssl.CERT_NONE
    with socket.create_connection(server.server_address, timeout=5) as raw, client.wrap_socket(raw) as tls:
        der = tls.getpeercert(binary_form=True)
    assert der is not None
    return der


def test_a_renewed_certificate_is_served_to_the_next_connection_without_a_restart() -> None:
    first, renewed = (delegation.tls_context(None, [name]) for name in ("first", "renewed"))
    served = httpserver.Server(("127.0.0.1", 0), _respond, tls=first)
    served.start()
    try:
        before = _served_certificate(served)
        served.use_tls(renewed)
        after = _served_certificate(served)
    finally:
        served.shutdown()
        served.server_close()

    assert b"first" in before and b"renewed" in after
