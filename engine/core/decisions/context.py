"""What a status rule sees: the parent, its observed children, related objects, helpers.

The names are those ``expressions.CONTEXT_NAMES`` lets a rule use; the helpers judge a
child as the reconcile does (``health``, ``conditions``), which is why this lives with the
decisions and not with the rules' compiler in the kind model.

``children`` holds two kinds of keys side by side, which cannot clash since kinds are
CamelCase and template ids lower-case: ``children.Deployment`` maps names to that kind's
observed children, and ``children.<id>`` is the observed child of the template with that
id (one child, or the list of those observed when the template renders several or none).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.core.decisions import conditions, health, ordering
from engine.core.model.identity import ChildId


def status_context(
    parent: dict[str, Any],
    observed: Sequence[dict[str, Any]],
    related: Sequence[dict[str, Any]] = (),
    now: str | None = None,
    *,
    origins: Sequence[ordering.Origin] = (),
    references: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """What a status rule can see: the parent, its observed children, related objects, and helpers.

    ``related`` are the objects of the kind's ``observe`` list labelled with the
    parent's uid, as lists by kind sorted by name (``related.Pod``).  ``now`` (RFC 3339) is
    the time ``health()`` judges at, so a rule's value does not depend on the wall clock.
    ``origins`` say which template made each rendered child (``ordering.origins``): they
    give ``children.<id>``.  ``references`` are what the kind's references read
    (``engine.core.decisions.referencing``): ``references.<id>``.
    """
    metadata = parent.get("metadata") or {}
    of_kind: dict[str, dict[str, dict[str, Any]]] = {}
    for obj in observed:
        of_kind.setdefault(str(obj.get("kind", "")), {})[_name(obj)] = obj
    children: dict[str, Any] = {**of_kind, **_by_template(observed, origins)}
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


def _by_template(observed: Sequence[dict[str, Any]], origins: Sequence[ordering.Origin]) -> dict[str, Any]:
    """``children.<id>``: the one observed child of a template that renders one, else a list."""
    by_identity = {ChildId.of(obj): obj for obj in observed}
    made: dict[str, list[dict[str, Any] | None]] = {}
    for origin in origins:
        made.setdefault(origin.template, []).append(by_identity.get(origin.child))
    found: dict[str, Any] = {}
    for template_id, objects in made.items():
        present = [obj for obj in objects if obj is not None]
        if len(objects) != 1:
            found[template_id] = present
        elif present:
            found[template_id] = present[0]
    return found


def _name(obj: Mapping[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("name", ""))
