"""Which object a child is: one frozen value, built from an object, said for people in one place.

The engine matches children everywhere: a rendered child with the cached one (planning,
ordering, status), a child with the parents that wait for its name, a golden file's
document with the live object.  Each match asks the same question, so each asks this
type: ``ChildId.of(obj)``.

The API server names an object by group, kind, namespace and name; the version is only
how it is served.  The cache may hold a child at another version of its group than the
template wrote (``autoscaling/v2`` and ``autoscaling/v1`` are one HorizontalPodAutoscaler),
so the version is kept — to apply at, and to say — but two ids differing only in version
are the same child.  A cluster-scoped object has the namespace ``""``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.core.model import apis


@dataclass(frozen=True, slots=True)
class ChildId:
    """An object's group, version, kind, namespace and name; equal across versions of its group."""

    group: str
    version: str = field(compare=False)
    kind: str
    namespace: str
    name: str

    @classmethod
    def of(cls, obj: Mapping[str, Any]) -> ChildId:
        """The id of ``obj``, a Kubernetes object as a dict (missing parts read as ``""``)."""
        meta = obj.get("metadata") or {}
        return cls.at(
            str(obj.get("apiVersion") or ""),
            str(obj.get("kind") or ""),
            str(meta.get("namespace") or ""),
            str(meta.get("name") or ""),
        )

    @classmethod
    def at(cls, api_version: str, kind: str, namespace: str, name: str) -> ChildId:
        """The id of the object ``kind`` ``namespace/name`` at ``api_version``."""
        group, version = apis.split_api_version(api_version)
        return cls(group, version, kind, namespace, name)

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    def __str__(self) -> str:
        """As people read it in conditions, events and CLI output: ``Deployment web`` or
        ``ConfigMap team-a/settings``."""
        where = f"{self.namespace}/" if self.namespace else ""
        return f"{self.kind} {where}{self.name}"
