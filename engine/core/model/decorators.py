"""Decorators: a kind whose parents are existing objects it selects, built-in or custom.

A kind.yaml whose ``parent:`` has a ``selector`` (labels, as a workload's) or an
``annotationSelector`` (``matchAnnotations`` and ``matchExpressions`` over annotations, as
Metacontroller's) does not serve a CRD of its own: every object of the parent's kind that the
selectors select, in the namespaces ``placement.namespaces`` names ("*": every one but those off
limits), becomes a parent.  Each gets the children the templates render, in its own namespace and
owned by it, so they go with it; when it is no longer selected they are pruned.  This is the only
way a built-in kind becomes a parent.

A decorator never writes the selected object's status (it has no status rules, no ``deleteWhen``,
no ``schema:``, no rollout or teardown) and holds no finalizer on it.  Its one write to the object
is a patch template naming the object itself, which may set only labels and annotations, applied
as the kind's field manager for that object (``engine.core.model.children.patches``).  Errors are said in
events on the object.  Everything here is pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.core.model.language.documents import Document

# What a decorator is not: each is a key of kind.yaml, and why it does not apply.
_NOT_FOR_DECORATORS = {
    "schema": "a decorator serves no CRD: its parents are objects of an existing kind",
    "status": "a decorator never writes the selected object's status",
    "deleteWhen": "a decorator never deletes the objects it selects",
    "rollout": "a decorator's change reaches every selected object at once",
    "teardown": "a decorator's children go with the selected object, through owner references",
}


@dataclass(frozen=True)
class Requirement:
    """One term of a selector: ``key`` ``operator`` ``values``, as a LabelSelectorRequirement."""

    key: str
    operator: str
    values: tuple[str, ...] = ()

    def holds(self, found: Mapping[str, Any]) -> bool:
        if self.operator == "Exists":
            return self.key in found
        if self.operator == "DoesNotExist":
            return self.key not in found
        inside = self.key in found and str(found[self.key]) in self.values
        return inside if self.operator == "In" else not inside

    def as_selector(self) -> str:
        """As a label selector's text says it: ``k in (a,b)``, ``k notin (a)``, ``k``, ``!k``."""
        if self.operator == "Exists":
            return self.key
        if self.operator == "DoesNotExist":
            return f"!{self.key}"
        return f"{self.key} {self.operator.lower()} ({','.join(self.values)})"


@dataclass(frozen=True)
class Decorates:
    """Which objects of the parent's kind a decorator selects, and where."""

    labels: tuple[Requirement, ...] = ()  # sent to the server as a label selector
    annotations: tuple[Requirement, ...] = ()  # checked on each object the labels select
    namespaces: tuple[str, ...] = ()  # whose objects it selects; "*": every one

    @property
    def label_selector(self) -> str | None:
        """The label selector the parents are watched with; None: every object."""
        return ",".join(r.as_selector() for r in self.labels) or None

    def selects(self, obj: Mapping[str, Any]) -> bool:
        """Whether ``obj`` is a parent: in a namespace the decorator selects in, with the labels and
        annotations its selectors ask for.  (A namespace off limits is the caller's to refuse.)"""
        meta = obj.get("metadata") or {}
        if "*" not in self.namespaces and str(meta.get("namespace") or "") not in self.namespaces:
            return False
        labels, annotations = meta.get("labels") or {}, meta.get("annotations") or {}
        wanted = [(r, labels) for r in self.labels] + [(r, annotations) for r in self.annotations]
        return all(requirement.holds(found) for requirement, found in wanted)


def decorates(parent: Mapping[str, Any]) -> bool:
    """Whether kind.yaml's ``parent:`` makes the kind a decorator: it has a selector."""
    return "selector" in parent or "annotationSelector" in parent


def load(document: Document) -> Decorates | None:
    """The selection of a decorator's kind.yaml; None for a kind serving parents of its own.  What a
    decorator cannot say is an error at its field."""
    data = document.data
    parent = data["parent"]
    if not decorates(parent):
        return None
    for key, why in _NOT_FOR_DECORATORS.items():
        if key in data:
            raise document.error(f"{why}: a decorator has no {key}", (key,))
    placement = data.get("placement") or {}
    namespaces = tuple(placement.get("namespaces") or ())
    if not namespaces:
        problem = "a decorator selects objects only in the namespaces named here ('*': all not off limits)"
        raise document.error(problem, ("placement", "namespaces") if "placement" in data else ("parent",))
    if placement.get("clusterScoped"):
        problem = "a decorator's children are in the selected object's namespace, owned by it"
        raise document.error(problem, ("placement", "clusterScoped"))
    labels = _requirements(document, parent.get("selector") or {}, "matchLabels", ("parent", "selector"))
    annotations = _requirements(
        document, parent.get("annotationSelector") or {}, "matchAnnotations", ("parent", "annotationSelector")
    )
    return Decorates(labels, annotations, namespaces)


def _requirements(
    document: Document, selector: Mapping[str, Any], matching: str, where: tuple[str, ...]
) -> tuple[Requirement, ...]:
    found = [Requirement(str(k), "In", (str(v),)) for k, v in sorted((selector.get(matching) or {}).items())]
    for index, term in enumerate(selector.get("matchExpressions") or ()):
        operator, values = term.get("operator"), tuple(str(v) for v in term.get("values") or ())
        at: tuple[str | int, ...] = (*where, "matchExpressions", index)
        if (operator in ("In", "NotIn")) != bool(values):
            raise document.error(f"{operator} takes values" if not values else f"{operator} takes none", at)
        found.append(Requirement(str(term["key"]), operator, values))
    return tuple(found)
