"""What a status rule sees: the parent, its observed children, related objects, helpers.

The names are those ``expressions.CONTEXT_NAMES`` lets a rule use; the helpers judge a
child as the reconcile does (``health``, ``conditions``), which is why this lives with the
decisions and not with the rules' compiler in the kind model.

``children`` holds two kinds of keys side by side, which cannot clash since kinds are
CamelCase and template ids lower-case: ``children.Deployment`` maps names to that kind's
observed children, and ``children.<id>`` is what the template with that id made, in the
shape ``engine.core.model.sources.shapes`` decides for templates and rules alike: a collection's list,
or the one child (``none`` until it is observed).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.core.decisions import conditions, health
from engine.core.decisions.plans import ordering
from engine.core.model.sources import shapes


def status_context(
    parent: dict[str, Any],
    observed: Sequence[dict[str, Any]],
    related: Sequence[dict[str, Any]] = (),
    now: str | None = None,
    *,
    origins: Sequence[ordering.Origin] = (),
    templates: Sequence[shapes.Shaped] = (),
    references: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """What a status rule can see: the parent, its observed children, related objects, and helpers.

    ``related`` are the objects of the kind's ``observe`` list labelled with the
    parent's uid, as lists by kind sorted by name (``related.Pod``).  ``now`` (RFC 3339) is
    the time ``health()`` judges at, so a rule's value does not depend on the wall clock.
    ``origins`` say which template made each rendered child (``ordering.origins``): they
    give ``children.<id>``, in the shape of its template in ``templates`` (the kind's).
    ``references`` are what the kind's references read (``engine.core.decisions.referencing``):
    ``references.<id>``.
    """
    metadata = parent.get("metadata") or {}
    of_kind: dict[str, dict[str, dict[str, Any]]] = {}
    for obj in observed:
        of_kind.setdefault(str(obj.get("kind", "")), {})[_name(obj)] = obj
    made = ((origin.template, origin.child) for origin in origins)
    children: dict[str, Any] = {**of_kind, **shapes.observed_by_id(templates, made, observed)}
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for obj in sorted(related, key=_name):
        by_kind.setdefault(str(obj.get("kind", "")), []).append(obj)

    def child(kind: str, name: str) -> dict[str, Any] | None:
        return of_kind.get(kind, {}).get(name)

    def condition(obj: Any, type: str) -> dict[str, Any] | None:
        return conditions.find(obj, type) if isinstance(obj, Mapping) else None

    def condition_status(obj: Any, type: str) -> str | None:
        found = condition(obj, type)
        return None if found is None else found.get("status")

    def health_of(obj: Any) -> str | None:
        return health.assess(obj, now=now).status if isinstance(obj, Mapping) else None

    return {
        "parent": parent,
        "spec": parent.get("spec") or {},
        "metadata": metadata,
        "status": parent.get("status") or {},
        "name": metadata.get("name", ""),
        "namespace": metadata.get("namespace", ""),
        "children": children,
        "related": by_kind,
        "references": dict(references or {}),
        "child": child,
        "condition": condition,
        "condition_status": condition_status,
        "health": health_of,
    }


def _name(obj: Mapping[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("name", ""))
