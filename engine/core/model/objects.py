"""A Kubernetes object as Stencil holds it, and the two things every part asks of one.

Stencil works with plain JSON dicts, never generated model classes: ``Obj`` is one as it was
decoded, ``View`` one only read (a ``Mapping``, so a caller may hand in any).  This module is
their one home, below every room that reads objects, the pure core and the runtime alike.

Asked of an object everywhere: its uid (``uid_of``), and where it is, its namespace and name
(``key_of``).  ``Key`` is that pair as a value, the queue's key for a parent: level-triggered,
a reconcile needs nothing else to re-read everything.  It is said as ``namespace/name``
(``/name`` when cluster-scoped), the form logs, traces and a kind's period hash; a key is never
parsed back out of text.  Which object a child is, across versions of its group, is a question
for ``identity.ChildId``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

Obj = dict[str, Any]  # a Kubernetes object, as JSON decodes it
View = Mapping[str, Any]  # one that is only read


class Key(NamedTuple):
    """Where an object is: its namespace (``""`` when cluster-scoped) and its name."""

    namespace: str
    name: str

    def __str__(self) -> str:
        return f"{self.namespace}/{self.name}"


def key_of(obj: View) -> Key:
    """The namespace and name of ``obj``."""
    meta = obj["metadata"]
    return Key(meta.get("namespace") or "", meta["name"])


def uid_of(obj: View) -> str:
    """The uid the API server gave ``obj`` (``""`` if it has none yet)."""
    return str(obj["metadata"].get("uid") or "")
