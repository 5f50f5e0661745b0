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

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any


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
        group, _, version = str(obj.get("apiVersion") or "").rpartition("/")
        return cls(
            group,
            version,
            str(obj.get("kind") or ""),
            str(meta.get("namespace") or ""),
            str(meta.get("name") or ""),
        )

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    def __str__(self) -> str:
        """As people read it in conditions, events and CLI output: ``Deployment web`` or
        ``ConfigMap team-a/settings``."""
        where = f"{self.namespace}/" if self.namespace else ""
        return f"{self.kind} {where}{self.name}"


def by_template(
    made: Iterable[tuple[str, ChildId]], observed: Iterable[Mapping[str, Any]], ids: Iterable[str] = ()
) -> dict[str, Any]:
    """``children.<id>``, for templates and status rules alike: what each template id reads as,
    given ``made`` (a template's id and a child it rendered, in render order) and ``observed``.

    The one statement of its shape: a template that rendered one child reads as that child,
    or ``None`` until it is observed; one that rendered several, as the list of those observed;
    one of ``ids`` that rendered none, as ``None``.
    """
    by_identity = {ChildId.of(obj): obj for obj in observed}
    rendered: dict[str, list[Mapping[str, Any] | None]] = {template_id: [] for template_id in ids}
    for template_id, child in made:
        rendered.setdefault(template_id, []).append(by_identity.get(child))
    found: dict[str, Any] = {}
    for template_id, objects in rendered.items():
        present = [obj for obj in objects if obj is not None]
        found[template_id] = objects[0] if len(objects) == 1 else present if objects else None
    return found
