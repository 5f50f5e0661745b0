"""Whether offline says what live did: ``stencil test``'s check that a kind's offline commands can
be trusted.

An example that passed on the real plane (Ready, its golden children) is rendered again offline,
through the one door every command renders through (``engine.core.door.offline``), fed what the
engine was fed: the live parent (its uid, so that owner references and labels agree), its live
children as the observed objects, and the example's fixtures as what its references find.  Then:

- **the children**: each child the engine applied carries the hash of what it rendered
  (``planning.HASH_ANNOTATION``); the offline render must make the same children with the same
  hashes, so the comparison is of the rendered objects themselves, before the API server
  normalized anything;
- **the status**: ``preview.parent_status`` over the live children and related objects must say
  what the engine wrote: each condition's type, status and reason, and each ``fields:`` rule's
  value.

A difference is a failure of the example that names the child or the condition, so a kind whose
offline render depends on something the offline commands do not see (a reference they do not
read, an observed object they drop) is caught by the test that already runs its examples.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from typing import Any

from engine.core import door
from engine.core.decisions import conditions
from engine.core.decisions.plans import planning
from engine.core.model import errors, kinds
from engine.core.model.identity import ChildId
from engine.core.model.objects import Obj
from engine.core.offline import preview


def disagreements(
    kind: kinds.Kind,
    parent: Mapping[str, Any],
    children: Sequence[Mapping[str, Any]],
    related: Sequence[Mapping[str, Any]],
    fixtures: Sequence[Mapping[str, Any]],
    *,
    is_namespaced: door.IsNamespaced,
) -> list[str]:
    """Where the offline render of the live ``parent`` differs from what the engine made of it:
    its ``children`` and ``related`` objects as the API server has them, its references reading
    ``fixtures``."""
    observed = [_without_managed_fields(child) for child in children]
    name = f"{kind.kind} {parent['metadata']['name']}"
    try:
        made, _ = door.offline(kind, dict(parent), observed, fixtures, is_namespaced=is_namespaced)
    except errors.StencilError as error:
        return [f"offline, {name} does not render as it did live: {error}"]
    found = _children_disagree(made.children, observed)
    if kind.decorates is not None:  # it writes no status to agree on
        return [f"offline and live differ for {name}: {what}" for what in found]
    now = conditions.timestamp(datetime.datetime.now(datetime.UTC))
    offline, _ = preview.parent_status(
        kind, parent, now, observed=[*observed, *related], fixtures=fixtures, is_namespaced=is_namespaced
    )
    found += _status_disagrees(kind, offline.get("status") or {}, parent.get("status") or {})
    return [f"offline and live differ for {name}: {what}" for what in found]


def _children_disagree(rendered: Sequence[Obj], live: Sequence[Obj]) -> list[str]:
    by_id = {ChildId.of(child): child for child in live}
    found = []
    for child in rendered:
        ref = ChildId.of(child)
        current = by_id.pop(ref, None)
        if current is None:
            found.append(f"offline renders {ref}, which the engine did not apply")
            continue
        wanted = _hash(planning.with_hash(child))
        if _hash(current) != wanted:
            found.append(f"{ref} rendered offline hashes to {wanted}, the engine applied {_hash(current)}")
    found += [f"the engine applied {ref}, which offline does not render" for ref in by_id]
    return found


def _status_disagrees(kind: kinds.Kind, offline: Mapping[str, Any], live: Mapping[str, Any]) -> list[str]:
    said = {c.get("type"): c for c in offline.get("conditions") or ()}
    wrote = {c.get("type"): c for c in live.get("conditions") or ()}
    found = []
    for type_ in sorted(set(said) | set(wrote), key=str):
        mine, theirs = said.get(type_) or {}, wrote.get(type_) or {}
        if (mine.get("status"), mine.get("reason")) != (theirs.get("status"), theirs.get("reason")):
            found.append(
                f"condition {type_}: offline {mine.get('status')} {mine.get('reason')}, "
                f"live {theirs.get('status')} {theirs.get('reason')}"
            )
    for rule in kind.fields:
        if offline.get(rule.name) != live.get(rule.name):
            found.append(
                f"status.{rule.name}: offline {offline.get(rule.name)!r}, live {live.get(rule.name)!r}"
            )
    return found


def _hash(obj: Mapping[str, Any]) -> Any:
    return ((obj.get("metadata") or {}).get("annotations") or {}).get(planning.HASH_ANNOTATION)


def _without_managed_fields(obj: Mapping[str, Any]) -> Obj:
    """``obj`` as the engine's caches hold it for the templates: without ``managedFields``."""
    meta = {k: v for k, v in (obj.get("metadata") or {}).items() if k != "managedFields"}
    return {**obj, "metadata": meta}
