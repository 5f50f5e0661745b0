"""The plane's own admin access to its API server: the kubeconfig it writes, and its few calls.

Both use the admin certificate ``pki`` makes (in ``system:masters``).  The
kubeconfig embeds the certificates, so the file stays usable wherever it is
copied.  The calls are the ones the plane makes while starting and restarting
(is ``/readyz`` up, create the kwok Nodes, are they Ready) and the watches its
storage provisioner follows (``storage``), through urllib:
importing the kubernetes client costs a second, and this package needs nothing
else of Stencil's.
"""

from __future__ import annotations

import base64
import http.client
import json
import ssl
import urllib.parse
import urllib.request
from collections.abc import Generator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from engine.localcluster import pki, processes

CONTEXT = "stencil-local"
WATCH_SECONDS = 300  # how long the server serves one watch before the watcher lists again


def ssl_context(files: pki.Files) -> ssl.SSLContext:
    """A TLS context that trusts the plane's CA and presents the admin certificate."""
    context = ssl.create_default_context(cafile=str(files.ca_cert))
    context.load_cert_chain(str(files.admin_cert), str(files.admin_key))
    return context


def kubeconfig(server: str, files: pki.Files) -> bytes:
    """An admin kubeconfig for ``server``, the certificates embedded."""

    def b64(path: Path) -> str:
        return base64.b64encode(path.read_bytes()).decode()

    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {
                "name": CONTEXT,
                "cluster": {"server": server, "certificate-authority-data": b64(files.ca_cert)},
            }
        ],
        "users": [
            {
                "name": pki.ADMIN_USER,
                "user": {
                    "client-certificate-data": b64(files.admin_cert),
                    "client-key-data": b64(files.admin_key),
                },
            }
        ],
        "contexts": [{"name": CONTEXT, "context": {"cluster": CONTEXT, "user": pki.ADMIN_USER}}],
        "current-context": CONTEXT,
    }
    return yaml.dump(config, Dumper=yaml.CSafeDumper, sort_keys=False).encode()


@dataclass(frozen=True)
class Admin:
    """Calls to the API server at ``server``, as its admin."""

    server: str
    context: ssl.SSLContext

    def request(self, method: str, path: str, body: Any = None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(
            self.server + path,
            data=data,
            method=method,
            headers={"Accept": "application/json", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, context=self.context, timeout=10) as response:
            return json.loads(response.read())

    def watch(self, path: str, resource_version: str) -> Generator[dict[str, Any], None, None]:
        """The events of a watch of ``path`` from ``resource_version``, until the server ends it."""
        query = urllib.parse.urlencode(
            {"watch": "1", "resourceVersion": resource_version, "timeoutSeconds": WATCH_SECONDS}
        )
        request = urllib.request.Request(
            f"{self.server}{path}?{query}", headers={"Accept": "application/json"}
        )
        # A socket timeout past the server's own: a quiet watch is not a broken one.
        with urllib.request.urlopen(request, context=self.context, timeout=WATCH_SECONDS + 30) as response:
            for line in response:
                if line.strip():
                    yield json.loads(line)

    def ok(self, path: str) -> bool:
        return processes.http_ok(self.server + path, self.context)

    def nodes_ready(self, count: int) -> bool:
        """Whether at least ``count`` Nodes are Ready (False while the server does not answer)."""
        try:
            listing = self.request("GET", "/api/v1/nodes")
        except (OSError, http.client.HTTPException):
            return False
        ready = [
            n
            for n in listing.get("items", [])
            if any(
                c.get("type") == "Ready" and c.get("status") == "True"
                for c in n.get("status", {}).get("conditions", [])
            )
        ]
        return len(ready) >= count
