"""The wire under ``engine.runtime.cluster.kube.Kube``: urllib3's pool, a request's headers, the answers.

``Kube`` says what to ask the API server; this module holds what urllib3 and HTTP make of it:
the connection pool built from a client configuration, the headers each request carries (the
configuration's token, asked for again each second, because an exec plugin refreshes it), a
failed answer turned into the ``ApiError`` it means (with the server's ``Retry-After``), a
connection that failed turned into ``Unreachable``, and the lines of a watch decoded into
events.  The configuration comes from the official client, which only ``kube`` imports, so
it is read here by attribute alone.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable, Iterator
from typing import Any

import orjson
import urllib3

from engine.core.model import errors
from engine.runtime.cluster import nesting

JSON = "application/json"
# A list's or a watch's objects as their metadata alone (``PartialObjectMetadata``, what
# client-go's metadata informers ask for), or the whole objects from a server that cannot.
METADATA_LIST = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1, application/json"
METADATA_WATCH = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1, application/json"


def pool(configuration: Any, size: int) -> urllib3.HTTPConnectionPool:
    """Kept-alive connections to the server ``configuration`` names, with its TLS settings.

    One server, so one pool, asked by path: urllib3's ``PoolManager`` would parse each request's
    URL again to find the pool, some 40-130 µs of CPU a request here.
    """
    tls: dict[str, Any] = {}  # an HTTP pool takes no TLS settings
    if configuration.host.startswith("https:"):
        tls = {
            "cert_reqs": "CERT_REQUIRED" if configuration.verify_ssl else "CERT_NONE",
            "ca_certs": configuration.ssl_ca_cert,
            "cert_file": configuration.cert_file,
            "key_file": configuration.key_file,
            "assert_hostname": configuration.assert_hostname,
        }
    return urllib3.connection_from_url(configuration.host, maxsize=size, block=False, **tls)


def encoded(body: Any) -> bytes:
    """A request's JSON body, by orjson (about ten times the standard library's speed); what orjson
    refuses (nesting beyond 254 levels, an integer beyond 64 bits, a key that is not a string) by
    the standard library, as before, so the API server answers for it."""
    try:
        return orjson.dumps(body)
    except orjson.JSONEncodeError:
        return json.dumps(body).encode()


# Seconds a token read from the configuration is sent before the configuration is asked again.
TOKEN_RECHECK = 1.0


class Token:
    """The configuration's ``Authorization`` value, asked of it at most once a ``TOKEN_RECHECK``.

    For a kubeconfig, asking runs the official client's refresh hook, which renews a token close
    to expiring (an exec plugin's five minutes ahead) and then applies the whole kubeconfig to the
    configuration again: host, certificates and the environment's proxies, some 50 µs each time,
    and each look-up runs it (two, for the two names a token may be kept under).  In a pod
    (``incluster``) the token file is read again each minute.  Renewing minutes ahead, a token
    read a second ago is as good as one read now.
    """

    def __init__(self, configuration: Any, clock: Callable[[], float] = time.monotonic) -> None:
        self._configuration = configuration
        self._clock = clock
        self._value: str | None = None
        self._until = float("-inf")

    def value(self) -> str | None:
        now = self._clock()
        if now >= self._until:
            configuration = self._configuration
            self._value = configuration.get_api_key_with_prefix(
                "authorization"
            ) or configuration.get_api_key_with_prefix("BearerToken")
            self._until = now + TOKEN_RECHECK
        return self._value


def headers(
    token: Token, content_type: str | None, impersonate: str | None, accept: str = JSON
) -> dict[str, str]:
    """The headers of one request: JSON, the configuration's token, whom it acts as."""
    found = {"Accept": accept}
    if content_type:
        found["Content-Type"] = content_type
    if authorization := token.value():
        found["Authorization"] = authorization
    if impersonate:
        found["Impersonate-User"] = impersonate
    return found


def chunks(response: urllib3.BaseHTTPResponse) -> Iterator[bytes]:
    """The body's chunks; a connection the server closes mid-stream is the watch's normal end."""
    try:
        yield from response.stream(65536)
    except urllib3.exceptions.ProtocolError:
        return


def events(response: urllib3.BaseHTTPResponse) -> Iterator[tuple[str, dict[str, Any]]]:
    """A watch's events ``(type, object)``, a line each; an ``ERROR`` event is raised."""
    buffer = b""
    for chunk in chunks(response):
        *lines, buffer = (buffer + chunk).split(b"\n")
        for line in lines:
            if not line.strip():
                continue
            event = nesting.loads(line)
            if event["type"] == "ERROR":
                status = event["object"]
                raise errors.api_error(int(status.get("code", 500)), status, "watch error")
            yield event["type"], event["object"]


def shutdown(response: urllib3.BaseHTTPResponse) -> None:
    """End a streaming response from another thread; a watch that already ended needs nothing."""
    # Already released to the pool (RuntimeError), its socket not set up for a shutdown yet
    # (urllib3's ValueError), or closed by the reading thread on a broken read and not yet
    # released (OSError, EBADF): there is nothing to end.
    with contextlib.suppress(RuntimeError, ValueError, OSError):
        response.shutdown()


def keep_reading(response: urllib3.BaseHTTPResponse, timeout: float) -> None:
    """Give a streaming response's socket ``timeout`` per read from now on, once its status line
    came within the shorter time to answer."""
    connection = response.connection
    sock = getattr(connection, "sock", None)
    if sock is not None:
        sock.settimeout(timeout)


def retry_after(response: urllib3.BaseHTTPResponse) -> float | None:
    """The ``Retry-After`` header in seconds (the API server sends whole seconds)."""
    value = response.headers.get("Retry-After")
    try:
        return max(float(value), 0.0) if value is not None else None
    except ValueError:
        return None


def error(response: urllib3.BaseHTTPResponse, payload: bytes, what: str) -> errors.ApiError:
    """The error for a failed response; a body that is not JSON (a 429 from priority and
    fairness is plain text) becomes the message."""
    try:
        decoded = json.loads(payload)
    except ValueError:
        decoded = None
    if not isinstance(decoded, dict):
        decoded = {"message": payload.decode(errors="replace")[:500].strip() or what}
    return errors.api_error(response.status, decoded, what, retry_after(response))


@contextlib.contextmanager
def reaching(what: str) -> Iterator[None]:
    """Turn a failed connection into ``Unreachable``: the server is down, not the request wrong."""
    try:
        yield
    except (urllib3.exceptions.HTTPError, OSError) as exc:
        raise errors.Unreachable(f"{what}: the API server did not answer: {exc}") from exc
