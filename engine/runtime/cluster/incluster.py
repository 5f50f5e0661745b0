"""The client configuration of a process in a pod: where the API server is, and how to prove who
it is, read the way client-go's ``rest.InClusterConfig`` reads them.

Kubernetes gives every pod two environment variables (``KUBERNETES_SERVICE_HOST`` and
``KUBERNETES_SERVICE_PORT``) and, in ``/var/run/secrets/kubernetes.io/serviceaccount``, the
cluster's CA and the pod's service-account token.  The kubelet replaces a projected token before
it expires; like client-go, the token is read again once a minute.

This is what an engine in a pod (the chart's) uses, so it is read here, without the official
client: importing the client (its kubeconfig loader pulls in requests, OAuth, pydantic and its
models) costs every replica 16.5 MiB of memory and 0.15 s of start-up, for two variables and two
files.  A kubeconfig, with its contexts, exec plugins and auth providers, is still read by the
official client (``kube.Kube.from_kubeconfig``).
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from engine.core.model import errors

log = logging.getLogger("stencil.kube")

ACCOUNT = Path("/var/run/secrets/kubernetes.io/serviceaccount")
TOKEN_REREAD = 60.0  # seconds a token read from its file is sent before the file is read again


class InCluster:
    """The configuration ``kube.Kube`` reads: the server's address and CA, and the token."""

    verify_ssl = True
    cert_file: str | None = None
    key_file: str | None = None
    assert_hostname: str | None = None

    def __init__(self, host: str, ca_file: Path, token_file: Path, clock: Callable[[], float]) -> None:
        self.host = host
        self.ssl_ca_cert = str(ca_file)
        self._token_file = token_file
        self._clock = clock
        self._token = _read(token_file, "token")
        self._read_at = clock()

    def get_api_key_with_prefix(self, identifier: str) -> str | None:
        """The ``Authorization`` header's value (``transport.Token`` asks for it by this name)."""
        if identifier != "authorization":
            return None
        if self._clock() - self._read_at >= TOKEN_REREAD:
            try:
                self._token = _read(self._token_file, "token")
            except errors.StencilError as error:
                log.warning("%s; the token read before is sent again", error)
            self._read_at = self._clock()
        return f"Bearer {self._token}"


def load(
    environ: Mapping[str, str] | None = None,
    account: Path | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> InCluster:
    """The configuration of this pod (``environ`` and ``account`` as given, or the process's and
    ``ACCOUNT``); a ``StencilError`` saying what is missing if this is not one."""
    environ = os.environ if environ is None else environ
    account = ACCOUNT if account is None else account
    host, port = environ.get("KUBERNETES_SERVICE_HOST", ""), environ.get("KUBERNETES_SERVICE_PORT", "")
    if not host or not port:
        raise errors.StencilError(
            "no kubeconfig found and not running in a cluster: "
            "KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not both set"
        )
    if ":" in host or "%" in host:  # an IPv6 address (Go's net.JoinHostPort)
        host = f"[{host}]"
    _read(account / "ca.crt", "CA")
    return InCluster(f"https://{host}:{port}", account / "ca.crt", account / "token", clock)


def _read(path: Path, what: str) -> str:
    try:
        text = path.read_text().strip()
    except OSError as error:
        raise errors.StencilError(
            f"running in a cluster, but its service-account {what} ({path}) cannot be read: {error.strerror}"
        ) from error
    if not text:
        raise errors.StencilError(f"running in a cluster, but its service-account {what} ({path}) is empty")
    return text
