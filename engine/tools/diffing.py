"""``stencil diff``: what the engine would change for a CR, shown before it runs.

The same three steps as a reconcile, read-only: observe the live parent and its
children, render, plan.  Each child the plan would apply is then applied as a
*server-side dry run*, so the API server itself says what the object would
become (defaults, field ownership, merging with other managers' fields), and
that is compared with the live object.  Children the plan would prune are shown
as deletions, names held by someone else as conflicts.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

import yaml

from engine.core import door
from engine.core.decisions import referencing
from engine.core.decisions.plans import planning
from engine.core.model import errors, kinds
from engine.core.model.children import placement
from engine.core.model.identity import ChildId
from engine.core.model.objects import Obj
from engine.core.offline import rbac
from engine.runtime.cluster.kube import Kube

# Fields the server owns and changes on every write: noise in a diff of intent.
_VOLATILE_METADATA = ("managedFields", "resourceVersion", "generation", "creationTimestamp", "uid")


@dataclass(frozen=True)
class Change:
    """One child: what would happen to it, and the diff of the live object to the new one."""

    action: str  # "create", "adopt", "update", "delete", "release", "keep", "conflict" or "unchanged"
    child: str  # "Deployment ns/name"
    diff: str = ""
    fields: tuple[str, ...] = ()  # for an update, the paths that change (``spec.replicas``)


def preview(kube: Kube, kind: kinds.Kind, parent: Obj) -> list[Change]:
    """The changes a reconcile of ``parent`` would make now, without making any."""
    meta = parent["metadata"]
    live_parent = kube.get(kube.resource(kind.api_version, kind.kind), meta["name"], meta.get("namespace"))
    if live_parent is not None:
        parent = {
            **parent,
            "metadata": {**parent["metadata"], "uid": live_parent["metadata"]["uid"]},
            "status": live_parent.get("status", {}),
        }
    uid = parent["metadata"].get("uid") or placement.NO_UID
    parent = {**parent, "metadata": {**parent["metadata"], "uid": uid}}
    resolved = door.references(kind, parent, lambda target: live_lookup(kube, target), kube.is_namespaced)
    observed = live_children(kube, kind, parent, resolved) if live_parent is not None else []
    made = door.render(kind, parent, observed, resolved, is_namespaced=kube.is_namespaced)
    if made.waiting:  # nothing would be rendered, so nothing applied or pruned: the engine waits
        raise errors.StencilError(f"{resolved.missing[0]}: the engine waits for it, changing nothing")
    desired = made.children
    reach = planning.Reach(
        parent["metadata"].get("namespace") or "", kind.placement.namespaces, kind.placement.cluster_scoped
    )
    plan = planning.plan(desired, observed, uid, reach)

    changes = [Change("conflict", str(conflict)) for conflict in plan.conflicts]
    changes += [Change("unchanged", str(r)) for r in plan.unchanged]
    for apply in plan.applies:
        changes.append(_preview_apply(kube, apply.obj, uid))
    for prune in plan.prunes:
        res = kube.resource(prune.api_version, prune.kind)
        live = kube.get(res, prune.name, prune.namespace or None)
        changes.append(Change("delete", str(prune.child), _unified(live, None, prune.child)))
    changes += [Change("release", str(release.child)) for release in plan.releases]  # Orphan: let go
    changes += [Change("keep", str(r)) for r in plan.kept]  # Retain, createOnly: no longer rendered
    return changes


def live_children(
    kube: Kube, kind: kinds.Kind, parent: Obj, resolved: referencing.Resolved = referencing.NOTHING
) -> list[Obj]:
    """The children ``parent`` (as it is in the cluster, with its uid) controls now: of the kinds the
    templates spell out and those a first render (before anything is observed; its references
    ``resolved``) yields, labelled with its uid and owned by it (as
    ``engine.runtime.reconciling.caches.children`` indexes them)."""
    uid = parent["metadata"]["uid"]
    try:
        first = door.render(kind, parent, [], resolved, is_namespaced=kube.is_namespaced).children
    except errors.StencilError:
        first = []  # a parent that does not render (now) still has the children it had
    child_kinds = rbac.spelled_child_kinds(kind) | {(c["apiVersion"], c["kind"]) for c in first}
    found: list[Obj] = []
    for api_version, child_kind in sorted(child_kinds):
        try:
            res = kube.resource(api_version, child_kind)
        except errors.NotFound:
            continue
        items, _ = kube.list(res, label_selector=f"{placement.PARENT_UID_LABEL}={uid}")
        found.extend(item for item in items if planning.controlled_by(item, uid))
    return found


def live_lookup(kube: Kube, target: referencing.Target) -> list[Obj]:
    """What a reference of a parent finds in the cluster now: the object it names, or those its
    selector matches (the engine finds them in its caches)."""
    try:
        res = kube.resource(target.where.api_version, target.where.kind)
    except errors.NotFound:
        return []
    namespace = target.where.namespace or None
    if target.selector:
        selector = ",".join(f"{key}={value}" for key, value in target.selector)
        return kube.list(res, namespace, label_selector=selector)[0]
    found = kube.get(res, target.where.name, namespace)
    return [found] if found is not None else []


def _preview_apply(kube: Kube, child: Obj, uid: str) -> Change:
    ref = ChildId.of(child)
    res = kube.resource(child["apiVersion"], child["kind"])
    live = kube.get(res, child["metadata"]["name"], child["metadata"].get("namespace"))
    adopted = live is not None and not planning.controlled_by(live, uid) and planning.adoptable(child, live)
    if live is not None and not planning.controlled_by(live, uid) and not adopted:
        return Change("conflict", f"{ref!s} already exists and is not controlled by this parent")
    after = kube.apply(child, dry_run=True)
    diff = _unified(live, after, ref)
    if live is None or adopted:
        return Change("adopt" if adopted else "create", str(ref), diff)
    fields = tuple(planning.changed_fields(_shown(live), _shown(after)))
    return Change("update" if diff else "unchanged", str(ref), diff, fields)


def _shown(obj: Obj) -> Obj:
    """What a diff of intent compares: no status, none of the fields the server rewrites, and not
    the applied-hash annotation (Stencil's bookkeeping, which changes with every change)."""
    meta = {k: v for k, v in obj.get("metadata", {}).items() if k not in _VOLATILE_METADATA}
    annotations = {k: v for k, v in (meta.get("annotations") or {}).items() if k != planning.HASH_ANNOTATION}
    if annotations:
        meta["annotations"] = annotations
    else:
        meta.pop("annotations", None)
    return {**{k: v for k, v in obj.items() if k != "status"}, "metadata": meta}


def _clean(obj: Obj | None) -> str:
    if obj is None:
        return ""
    return yaml.dump(_shown(obj), Dumper=yaml.CSafeDumper, sort_keys=True, default_flow_style=False)


def _masked(before: Obj | None, after: Obj | None) -> tuple[Obj | None, Obj | None]:
    """A Secret's data as ``kubectl diff`` shows it: ``***`` where a value is the same on both
    sides, ``*** (before)`` and ``*** (after)`` where it changes; the values themselves never."""
    if (after or before or {}).get("kind") != "Secret" or (after or before or {}).get("apiVersion") != "v1":
        return before, after
    old, new = (dict((obj or {}).get("data") or {}) for obj in (before, after))
    masks: dict[str, dict[str, str]] = {"before": {}, "after": {}}
    for key in old.keys() | new.keys():
        same = old.get(key) == new.get(key)
        masks["before"][key] = "***" if same else "*** (before)"
        masks["after"][key] = "***" if same else "*** (after)"
    before = {**before, "data": {k: masks["before"][k] for k in old}} if before is not None else None
    after = {**after, "data": {k: masks["after"][k] for k in new}} if after is not None else None
    return before, after


def _unified(before: Obj | None, after: Obj | None, ref: ChildId) -> str:
    name = "/".join(part for part in (ref.api_version, ref.kind, ref.namespace, ref.name) if part)
    before, after = _masked(before, after)
    lines = difflib.unified_diff(
        _clean(before).splitlines(keepends=True),
        _clean(after).splitlines(keepends=True),
        fromfile=f"live/{name}",
        tofile=f"stencil/{name}",
    )
    return "".join(lines)


def labelled(kube: Kube, api_version: str, kind: str, uid: str) -> list[Obj]:
    """The objects of ``kind`` labelled with a parent's uid, by namespace and name: the related
    objects its rules read (``observe:``)."""
    try:
        res = kube.resource(api_version, kind)
    except errors.NotFound:
        return []
    items = kube.list(res, label_selector=f"{placement.PARENT_UID_LABEL}={uid}")[0]
    return sorted(items, key=lambda obj: (ChildId.of(obj).namespace, ChildId.of(obj).name))
