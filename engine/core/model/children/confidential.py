"""Values read from a Secret stay in Secrets: a child may carry them only in a Secret's data.

What a kind reads from a Secret (a reference, an observed child, ``child('Secret', ...)``) is
secret: each string under such an object's ``data`` (and its base64-decoded text) or
``stringData``.  After a child is placed, every string it carries outside a Secret's ``data``
and ``stringData`` is searched for each of them, so a copy, a ``b64decode`` of one, or text
built around one (``"password=" ~ secret``) is refused at the template line that wrote the
field, naming the field and never the value.  A one-way digest (``sha256``) holds none of the
secret's characters, so a checksum annotation that rolls pods when a Secret changes is allowed.
Strings shorter than ``MIN_LENGTH`` are not searched for: they would match by chance.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from engine.core.model.language.documents import FieldPath

MIN_LENGTH = 6
_CARRIERS = ("data", "stringData")


def _secrets_in(value: Any) -> Iterator[dict[str, Any]]:
    if isinstance(value, Mapping):
        if value.get("kind") == "Secret" and value.get("apiVersion", "v1") == "v1":
            yield dict(value)
        else:
            for item in value.values():
                yield from _secrets_in(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _secrets_in(item)


def secret_values(
    references: Mapping[str, Any] | None, observed: Iterable[Mapping[str, Any]]
) -> frozenset[str]:
    """Every secret string the templates can read: from referenced and observed Secrets."""
    found: set[str] = set()
    for secret in [*_secrets_in(dict(references or {})), *_secrets_in(list(observed))]:
        for value in (secret.get("data") or {}).values():
            if isinstance(value, str):
                found.add(value)
                with contextlib.suppress(binascii.Error, UnicodeDecodeError):
                    found.add(base64.b64decode(value, validate=True).decode())
        found.update(v for v in (secret.get("stringData") or {}).values() if isinstance(v, str))
    return frozenset(value for value in found if len(value) >= MIN_LENGTH)


def leaks(child: dict[str, Any], secrets: frozenset[str]) -> Iterator[FieldPath]:
    """The field paths of ``child`` outside a Secret's data that hold a secret string."""
    if not secrets:
        return
    is_secret = child.get("kind") == "Secret" and str(child.get("apiVersion")) == "v1"
    for key, value in child.items():
        if is_secret and key in _CARRIERS:
            continue
        yield from _walk(value, (key,), secrets)
        if isinstance(key, str) and any(s in key for s in secrets):
            yield (key,)


def _walk(value: Any, path: FieldPath, secrets: frozenset[str]) -> Iterator[FieldPath]:
    if isinstance(value, str):
        if any(secret in value for secret in secrets):
            yield path
    elif isinstance(value, Mapping):
        for key, item in value.items():
            if isinstance(key, str) and any(secret in key for secret in secrets):
                yield (*path, key)
            yield from _walk(item, (*path, key), secrets)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _walk(item, (*path, index), secrets)


IN_STATUS = "withheld: it would show a value read from a Secret (a one-way digest, | sha256, may be shown)"


def holds(value: Any, secrets: frozenset[str]) -> bool:
    """Whether ``value`` (a status field's, a condition message's) holds a secret string."""
    return bool(secrets) and next(_walk(value, (), secrets), None) is not None


def leak_message(child: dict[str, Any], path: FieldPath) -> str:
    where = ".".join(str(p) for p in path)
    name = (child.get("metadata") or {}).get("name")
    named = "" if path[:2] == ("metadata", "name") else f" {name!r}"  # never quote the value itself
    return (
        f"{child.get('kind')}{named}: {where} would hold a value read from a Secret; such values may "
        "go only into a Secret child's data or stringData (a one-way digest, | sha256, may go anywhere)"
    )
