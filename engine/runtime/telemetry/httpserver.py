"""The engine's small HTTP server: one selector thread for every socket, a few workers to answer.

The metrics, probe and conversion webhook ports face whatever can reach the pod, so what a
client that connects and says nothing costs is bounded here, not left to a thread per
connection (the standard library's ``ThreadingHTTPServer``: 8,000 idle sockets were 8,000
threads and half a GiB, and the kubelet's probe timed out behind them).  One thread waits on
every socket with ``selectors``; it does the TLS handshake without blocking, reads the request
head up to ``HEAD_LIMIT`` bytes and its body up to the server's ``body_limit``, and hands only
a complete request to a fixed pool of ``WORKERS`` threads, which compute the answer; the
selector thread writes it back and closes the connection (one request per connection,
``Connection: close``).  A body is read as it comes, between the other sockets' reads, so a
large one (the webhook's ConversionReviews) holds up no other request.

Four bounds hold for every connection:

- ``head_timeout`` seconds from accept for the handshake, the whole head and the whole body,
  else it is closed; the answer has ``write_timeout`` seconds to leave;
- a head over ``HEAD_LIMIT`` gets 431, a body over ``body_limit`` (``BODY_LIMIT`` unless the
  server says more) 413, and a body of no stated length (chunked) 411;
- the bodies being read or answered hold at most ``buffer_limit`` bytes between them: a body
  that would pass it closes the oldest connection still sending one, or gets 503 when that is
  not enough;
- at most ``max_connections`` are open.  At the cap, a new connection closes the *oldest one
  still unfinished* (handshake or head not done), and is closed itself only when every open
  connection already has a request in hand.  Refusing newcomers instead would let a flood that
  filled the cap first lock the kubelet out until the flood's deadlines ran out, over and over;
  evicting the oldest means a flood has to open ``max_connections`` sockets in the few
  milliseconds a probe takes to send its head to crowd it out.
"""

from __future__ import annotations

import collections
import contextlib
import email.utils
import logging
import queue
import selectors
import socket
import ssl
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from http import HTTPStatus

log = logging.getLogger("stencil")

HEAD_LIMIT = 16 * 1024
BODY_LIMIT = 16 * 1024  # metrics and probes; the webhook's reviews say more
WORKERS = 4
MAX_CONNECTIONS = 512
HEAD_TIMEOUT = 5.0
WRITE_TIMEOUT = 30.0


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    headers: Mapping[str, str]  # names in lower case
    body: bytes


@dataclass(frozen=True)
class Response:
    status: HTTPStatus
    body: bytes
    content_type: str = "text/plain; charset=utf-8"

    def encoded(self) -> bytes:
        head = (
            f"HTTP/1.1 {self.status.value} {self.status.phrase}\r\n"
            f"Date: {email.utils.formatdate(usegmt=True)}\r\n"
            f"Content-Type: {self.content_type}\r\n"
            f"Content-Length: {len(self.body)}\r\n"
            "Connection: close\r\n\r\n"
        )
        return head.encode("latin-1") + self.body


Respond = Callable[[Request], Response]


class _Connection:
    """One accepted socket, from accept to close; touched only by the selector thread."""

    def __init__(self, sock: socket.socket, deadline: float, handshaking: bool) -> None:
        self.sock = sock
        self.deadline = deadline
        self.handshaking = handshaking
        self.tls: ssl.SSLContext | None = None  # the server's context when it was accepted
        self.data = bytearray()
        self.head_end = -1  # index just past "\r\n\r\n", once seen
        self.wanted = 0  # head plus body, once the head is parsed
        self.reserved = 0  # the body's bytes counted against the server's buffer_limit
        self.out = memoryview(b"")


class Server:
    """Serves ``respond`` on ``address`` from its own threads until ``shutdown()``."""

    def __init__(
        self,
        address: tuple[str, int],
        respond: Respond,
        *,
        tls: ssl.SSLContext | None = None,
        max_connections: int = MAX_CONNECTIONS,
        head_timeout: float = HEAD_TIMEOUT,
        write_timeout: float = WRITE_TIMEOUT,
        workers: int = WORKERS,
        body_limit: int = BODY_LIMIT,
        buffer_limit: int | None = None,
        methods: frozenset[str] = frozenset({"GET"}),
    ) -> None:
        host, port = address
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self._listener = socket.create_server((host, port), family=family, backlog=socket.SOMAXCONN)
        self._listener.setblocking(False)
        self.server_address: tuple[str, int] = self._listener.getsockname()[:2]
        self._respond, self._tls = respond, tls
        self._cap, self._head_timeout, self._write_timeout = max_connections, head_timeout, write_timeout
        self._body_limit, self._methods = body_limit, methods
        self._buffer_limit = buffer_limit if buffer_limit is not None else max_connections * body_limit
        self._reserved = 0  # bytes of bodies being read or answered, between them
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._listener, selectors.EVENT_READ)
        self._wake_read, self._wake_write = socket.socketpair()
        self._wake_read.setblocking(False)
        self._wake_write.setblocking(False)
        self._selector.register(self._wake_read, selectors.EVENT_READ)
        # In accept order (so oldest first, and deadline order too): handshake or head not done.
        self._unfinished: collections.OrderedDict[_Connection, None] = collections.OrderedDict()
        self._working: set[_Connection] = set()  # a request in a worker's hands
        self._sending: collections.OrderedDict[_Connection, None] = collections.OrderedDict()
        self._answered: queue.SimpleQueue[tuple[_Connection, bytes]] = queue.SimpleQueue()
        self._requests: queue.SimpleQueue[tuple[_Connection, Request] | None] = queue.SimpleQueue()
        self._stopping = threading.Event()
        self._threads = [threading.Thread(target=self._loop, name="stencil-http", daemon=True)]
        self._threads += [
            threading.Thread(target=self._work, name=f"stencil-http-{n}", daemon=True) for n in range(workers)
        ]
        self._closed = False

    def start(self) -> None:
        for thread in self._threads:
            thread.start()

    def use_tls(self, tls: ssl.SSLContext) -> None:
        """Take ``tls`` for every connection accepted from now on (a renewed certificate); those
        already handshaking keep the context they began with."""
        self._tls = tls

    def shutdown(self) -> None:
        """Stop serving and wait for the server's threads to end."""
        self._stopping.set()
        for _ in self._threads[1:]:
            self._requests.put(None)
        self._wake()
        for thread in self._threads:
            if thread.is_alive() and thread is not threading.current_thread():
                thread.join()

    def server_close(self) -> None:
        """Close the listening socket and every connection still open."""
        if self._closed:
            return
        self._closed = True
        for connection in [*self._unfinished, *self._working, *self._sending]:
            connection.sock.close()
        self._unfinished.clear()
        self._working.clear()
        self._sending.clear()
        self._selector.close()
        for sock in (self._listener, self._wake_read, self._wake_write):
            sock.close()

    # -- the selector thread ------------------------------------------------

    def _loop(self) -> None:
        while not self._stopping.is_set():
            now = time.monotonic()
            self._expire(now)
            deadlines = [next(iter(d)).deadline for d in (self._unfinished, self._sending) if d]
            timeout = max(0.0, min(deadlines) - now) if deadlines else None
            for key, _ in self._selector.select(timeout):
                if key.fileobj is self._listener:
                    self._accept()
                elif key.fileobj is self._wake_read:
                    self._drain_wake()
                else:
                    connection: _Connection = key.data
                    if connection in self._sending:
                        self._send(connection)
                    elif connection in self._unfinished:
                        self._advance(connection)

    def _expire(self, now: float) -> None:
        for pending in (self._unfinished, self._sending):
            while pending and next(iter(pending)).deadline <= now:
                self._close(next(iter(pending)))

    def _accept(self) -> None:
        while True:
            try:
                sock, _ = self._listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError:  # out of descriptors, or the peer gone already
                if self._unfinished:  # free a descriptor, or the listener stays readable forever
                    self._close(next(iter(self._unfinished)))
                return
            if len(self._unfinished) + len(self._working) + len(self._sending) >= self._cap:
                if not self._unfinished:
                    sock.close()
                    continue
                self._close(next(iter(self._unfinished)))
            sock.setblocking(False)
            connection = _Connection(sock, time.monotonic() + self._head_timeout, self._tls is not None)
            connection.tls = self._tls
            self._unfinished[connection] = None
            self._selector.register(sock, selectors.EVENT_READ, connection)

    def _advance(self, connection: _Connection) -> None:
        """Move the handshake and the head on as far as the socket allows now."""
        sock = connection.sock
        try:
            if connection.handshaking:
                if not isinstance(sock, ssl.SSLSocket):
                    # Wrapped only once the client has sent something: an idle socket holds no
                    # TLS state (tens of KiB each once a handshake starts).
                    assert connection.tls is not None
                    self._selector.unregister(sock)
                    sock = connection.sock = connection.tls.wrap_socket(
                        sock, server_side=True, do_handshake_on_connect=False
                    )
                    self._selector.register(sock, selectors.EVENT_READ, connection)
                sock.do_handshake()
                connection.handshaking = False
            while connection.wanted == 0 or len(connection.data) < connection.wanted:
                chunk = sock.recv(8192)
                if not chunk:
                    self._close(connection)
                    return
                connection.data += chunk
                if connection.wanted == 0 and not self._read_head(connection):
                    return
        except ssl.SSLWantWriteError:
            self._selector.modify(sock, selectors.EVENT_WRITE, connection)
            return
        except (ssl.SSLWantReadError, BlockingIOError, InterruptedError):
            self._selector.modify(sock, selectors.EVENT_READ, connection)
            return
        except OSError:  # ssl.SSLError included: not TLS, or a peer gone
            self._close(connection)
            return
        del self._unfinished[connection]
        self._selector.unregister(sock)
        self._working.add(connection)
        request, connection.data = _request(connection), bytearray()  # the request holds the body
        self._requests.put((connection, request))

    def _read_head(self, connection: _Connection) -> bool:
        """False when the connection got its answer (431, 400, 411, 413, 503) instead of a request."""
        end = connection.data.find(b"\r\n\r\n")
        if end < 0:
            if len(connection.data) > HEAD_LIMIT:
                self._answer_now(connection, HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE)
                return False
            return True
        if end + 4 > HEAD_LIMIT:
            self._answer_now(connection, HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE)
            return False
        connection.head_end = end + 4
        headers = _headers(connection.data[:end])
        length = headers.get("content-length", "0")
        if "transfer-encoding" in headers:
            self._answer_now(connection, HTTPStatus.LENGTH_REQUIRED)
            return False
        if not length.isdigit():
            self._answer_now(connection, HTTPStatus.BAD_REQUEST)
            return False
        if int(length) > self._body_limit:
            self._answer_now(connection, HTTPStatus.REQUEST_ENTITY_TOO_LARGE)
            return False
        if not self._reserve(connection, int(length)):
            self._answer_now(connection, HTTPStatus.SERVICE_UNAVAILABLE)
            return False
        connection.wanted = connection.head_end + int(length)
        return True

    def _reserve(self, connection: _Connection, length: int) -> bool:
        """Count ``length`` bytes of body against ``buffer_limit``, closing the oldest connections
        still sending a body to make room; False when even that leaves too little."""
        if self._reserved + length > self._buffer_limit:
            older = [c for c in self._unfinished if c.reserved and c is not connection]
            while older and self._reserved + length > self._buffer_limit:
                self._close(older.pop(0))
            if self._reserved + length > self._buffer_limit:
                return False
        connection.reserved = length
        self._reserved += length
        return True

    def _answer_now(self, connection: _Connection, status: HTTPStatus) -> None:
        del self._unfinished[connection]
        self._selector.unregister(connection.sock)
        self._start_sending(connection, Response(status, f"{status.phrase}\n".encode()).encoded())

    def _start_sending(self, connection: _Connection, answer: bytes) -> None:
        connection.out = memoryview(answer)
        connection.deadline = time.monotonic() + self._write_timeout
        self._sending[connection] = None
        self._selector.register(connection.sock, selectors.EVENT_WRITE, connection)
        self._send(connection)

    def _send(self, connection: _Connection) -> None:
        try:
            while connection.out:
                sent = connection.sock.send(connection.out)
                connection.out = connection.out[sent:]
        except (ssl.SSLWantWriteError, BlockingIOError, InterruptedError):
            self._selector.modify(connection.sock, selectors.EVENT_WRITE, connection)
            return
        except ssl.SSLWantReadError:
            self._selector.modify(connection.sock, selectors.EVENT_READ, connection)
            return
        except OSError:
            pass
        self._close(connection)

    def _close(self, connection: _Connection) -> None:
        self._reserved -= connection.reserved
        connection.reserved = 0
        self._unfinished.pop(connection, None)
        self._sending.pop(connection, None)
        self._working.discard(connection)
        with contextlib.suppress(KeyError, ValueError):  # not registered while in a worker's hands
            self._selector.unregister(connection.sock)
        connection.sock.close()

    def _wake(self) -> None:
        with contextlib.suppress(OSError):  # the pipe is full (a wake-up is pending anyway) or closed
            self._wake_write.send(b"\0")

    def _drain_wake(self) -> None:
        try:
            while self._wake_read.recv(4096):
                pass
        except (BlockingIOError, InterruptedError):
            pass
        while True:
            try:
                connection, answer = self._answered.get_nowait()
            except queue.Empty:
                return
            if connection in self._working:
                self._working.discard(connection)
                self._start_sending(connection, answer)

    # -- the workers ----------------------------------------------------------

    def _work(self) -> None:
        while (item := self._requests.get()) is not None:
            connection, request = item
            if not request.method:
                response = Response(HTTPStatus.BAD_REQUEST, b"bad request\n")
            elif request.method not in self._methods:
                response = Response(HTTPStatus.NOT_IMPLEMENTED, b"unsupported method\n")
            else:
                try:
                    response = self._respond(request)
                except Exception:
                    log.exception("answering %s %s failed", request.method, request.path)
                    response = Response(HTTPStatus.INTERNAL_SERVER_ERROR, b"internal server error\n")
            self._answered.put((connection, response.encoded()))
            self._wake()


def _headers(head: bytes | bytearray) -> dict[str, str]:
    headers = {}
    for line in bytes(head).decode("latin-1").split("\r\n")[1:]:
        name, colon, value = line.partition(":")
        if colon:
            headers[name.strip().lower()] = value.strip()
    return headers


def _request(connection: _Connection) -> Request:
    head = bytes(connection.data[: connection.head_end - 4])
    parts = head.split(b"\r\n", 1)[0].decode("latin-1").split()
    method, path = (parts[0], parts[1]) if len(parts) == 3 else ("", "")
    return Request(
        method, path, _headers(head), bytes(connection.data[connection.head_end : connection.wanted])
    )
