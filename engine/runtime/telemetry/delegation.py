"""Who may read ``/metrics``: the API server decides, as for controller-runtime's secure metrics.

A scrape carries a bearer token.  The engine does not judge it itself: it asks the API
server who the token belongs to (a ``TokenReview``) and whether that user may ``get`` the
non-resource URL ``/metrics`` (a ``SubjectAccessReview``), exactly as kube-rbac-proxy and
controller-runtime's ``filters.WithAuthenticationAndAuthorization`` do.  So reading metrics
is granted with RBAC like anything else (``nonResourceURLs: ["/metrics"], verbs: ["get"]``),
and the engine's own rights need only ``create`` on those two review kinds.

Verdicts are HTTP statuses: 401 for no token or one the API server does not accept, 403
for a user it does not allow, 200 otherwise; 500 when the API server could not be asked,
so that a scrape fails loudly instead of passing.  Answers are cached for a minute
(controller-runtime's ``CacheTTL`` and ``AllowCacheTTL``/``DenyCacheTTL``) under the token's
SHA-256, never the token itself, and the cache holds at most ``CACHE_SIZE`` tokens, so a
stream of made-up tokens costs a review each but no memory beyond that.

The review is a plain callable (path, body) -> answer, the one seam: ``Kube.request``
bound to ``POST`` in production, a function in the unit tests.

The serving certificate is the operator's (``tls.crt`` and ``tls.key`` in a folder, as
cert-manager writes a Secret), or else a self-signed one made at start, as
controller-runtime does when it is given none (``selfsigned``, in a child process).
"""

from __future__ import annotations

import hashlib
import ssl
import tempfile
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from http import HTTPStatus
from pathlib import Path
from typing import Any

from engine.core.model import errors
from engine.runtime.telemetry import selfsigned

TOKEN_REVIEWS = "/apis/authentication.k8s.io/v1/tokenreviews"
SUBJECT_ACCESS_REVIEWS = "/apis/authorization.k8s.io/v1/subjectaccessreviews"
CACHE_TTL = 60.0
CACHE_SIZE = 1024
CERT_NAME, KEY_NAME = selfsigned.CERT_NAME, selfsigned.KEY_NAME

Review = Callable[[str, dict[str, Any]], Any]


def bearer_token(authorization: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header, or None."""
    if not authorization:
        return None
    scheme, _, token = authorization.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        return None
    return token


def token_review(token: str) -> dict[str, Any]:
    return {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "spec": {"token": token}}


def access_review(user: dict[str, Any], path: str) -> dict[str, Any]:
    """May ``user`` (a TokenReview's ``status.user``) ``get`` the non-resource URL ``path``?"""
    spec: dict[str, Any] = {
        "user": user.get("username", ""),
        "nonResourceAttributes": {"path": path, "verb": "get"},
    }
    for field in ("uid", "groups", "extra"):
        if user.get(field):
            spec[field] = user[field]
    return {"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview", "spec": spec}


class Delegate:
    """Answers "may this request read ``path``?" by asking the API server; thread-safe."""

    def __init__(
        self,
        review: Review,
        *,
        ttl: float = CACHE_TTL,
        size: int = CACHE_SIZE,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._review = review
        self._ttl = ttl
        self._size = size
        self._clock = clock
        self._cache: OrderedDict[tuple[str, str], tuple[float, HTTPStatus]] = OrderedDict()
        self._lock = threading.Lock()

    def verdict(self, authorization: str | None, path: str) -> HTTPStatus:
        """200, 401, 403, or 500 when the API server could not answer (never cached)."""
        token = bearer_token(authorization)
        if token is None:
            return HTTPStatus.UNAUTHORIZED
        key = (hashlib.sha256(token.encode()).hexdigest(), path)
        now = self._clock()
        with self._lock:
            cached = self._cache.get(key)
            if cached is not None and cached[0] > now:
                return cached[1]
        try:
            status = self._ask(token, path)
        except errors.StencilError:
            return HTTPStatus.INTERNAL_SERVER_ERROR
        with self._lock:
            self._cache[key] = (now + self._ttl, status)
            self._cache.move_to_end(key)
            while len(self._cache) > self._size:
                self._cache.popitem(last=False)
        return status

    def _ask(self, token: str, path: str) -> HTTPStatus:
        identity = (self._review(TOKEN_REVIEWS, token_review(token)) or {}).get("status", {})
        if not identity.get("authenticated"):
            return HTTPStatus.UNAUTHORIZED
        decision = self._review(SUBJECT_ACCESS_REVIEWS, access_review(identity.get("user", {}), path)) or {}
        return HTTPStatus.OK if decision.get("status", {}).get("allowed") else HTTPStatus.FORBIDDEN


# -- the serving certificate -------------------------------------------------


def tls_context(cert_dir: Path | None, names: Sequence[str]) -> ssl.SSLContext:
    """A server context from ``cert_dir``'s ``tls.crt`` and ``tls.key``, or a self-signed pair."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    if cert_dir is not None:
        cert, key = cert_dir / CERT_NAME, cert_dir / KEY_NAME
        for path in (cert, key):
            if not path.is_file():
                raise errors.StencilError(
                    f"{path}: no such file (--metrics-cert-path wants {CERT_NAME} and {KEY_NAME})"
                )
        try:
            context.load_cert_chain(cert, key)
        except (ssl.SSLError, ValueError) as error:
            problem = f"{cert}: not a certificate and key that belong together: {error}"
            raise errors.StencilError(problem) from error
        return context
    # ssl loads a chain from files only; they live as long as it takes to read them.
    with tempfile.TemporaryDirectory(prefix="stencil-metrics-") as folder:
        selfsigned.in_a_child(Path(folder), names)
        context.load_cert_chain(Path(folder) / CERT_NAME, Path(folder) / KEY_NAME)
    return context
