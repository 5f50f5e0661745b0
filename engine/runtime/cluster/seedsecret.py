"""The engine's seed key, kept in a Secret of its own namespace: read it, or make it once.

``random_string`` draws under a key only the engine holds (``engine.core.model.language.seedkeys``).  It
must be the same for every replica and after every restart, or a generated password would
change under its users, so it lives in the cluster, in the Secret ``SECRET_NAME`` of the
engine's namespace, which tenants' roles do not reach.

Two replicas starting at once must agree on one key.  Each makes a key and *creates* the Secret
with it (a POST, never an apply, which would let the second overwrite the first); the server lets
one create win, ever, and every other start, answered 409, reads the key that won.  Creating
before reading costs one refused request a start, and leaves no moment between a read that
found nothing and a create in which another replica's key could be missed.  A Secret that holds
no usable key is an error rather than replaced: replacing it would change every generated value
at once.

The engine reads the key on its first reconcile (``SeedKey``), not before it starts: an engine that
cannot reach its API server yet stays alive and unready, as it does for its caches, and a
reconcile that cannot read the key fails and is retried rather than drawing under another key.
"""

from __future__ import annotations

import base64
import binascii
import secrets
import threading

from engine.core.model import errors
from engine.core.model.language import seedkeys
from engine.core.model.objects import Obj
from engine.runtime.cluster.kube import Kube

SECRET_NAME = seedkeys.SECRET_NAME
DATA_KEY = "key"


class SeedKeyError(errors.StencilError):
    """The Secret is there but holds no key this engine can use."""

    reason = "SeedKeyInvalid"


def read_or_create(kube: Kube, namespace: str, name: str = SECRET_NAME) -> bytes:
    """The key in the Secret ``namespace/name``; made and stored first when there is none."""
    try:
        found = kube.create(_secret(namespace, name, secrets.token_bytes(seedkeys.SIZE)))
    except errors.AlreadyExists:  # made before, or by another replica just now: its key is the key
        read = kube.get(kube.resource("v1", "Secret"), name, namespace)
        if read is None:
            raise SeedKeyError(f"Secret {namespace}/{name} was there and is gone: start again") from None
        found = read
    return key_of(found, f"{namespace}/{name}")


class SeedKey:
    """The key of the Secret ``namespace/name``, read (or made) on first use and then kept."""

    def __init__(self, kube: Kube, namespace: str, name: str = SECRET_NAME) -> None:
        self._kube, self._namespace, self._name = kube, namespace, name
        self._lock = threading.Lock()
        self._key: bytes | None = None

    def __call__(self) -> bytes:
        with self._lock:  # one read for all workers; a failed one is tried again next time
            if self._key is None:
                self._key = read_or_create(self._kube, self._namespace, self._name)
            return self._key


def _secret(namespace: str, name: str, key: bytes) -> Obj:
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "labels": {"app.kubernetes.io/managed-by": "stencil"},
            "annotations": {
                "stencil.dev/purpose": "the key random_string draws with; replacing it changes "
                "every generated value"
            },
        },
        "type": "Opaque",
        "immutable": True,
        "data": {DATA_KEY: base64.b64encode(key).decode("ascii")},
    }


def key_of(secret: Obj, where: str) -> bytes:
    """The key a seed key Secret (``where``: namespace/name, for the message) holds."""
    encoded = (secret.get("data") or {}).get(DATA_KEY)
    try:
        key = base64.b64decode(str(encoded), validate=True) if encoded else b""
    except (binascii.Error, ValueError):
        key = b""
    if not 16 <= len(key) <= 64:
        raise SeedKeyError(f"Secret {where} holds no seed key in data.{DATA_KEY} (16 to 64 bytes)")
    return key
