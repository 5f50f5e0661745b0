"""``stencil plan`` against a cluster: every parent of a kind read, planned in process, a sample dry-run.

Read-only, and shaped to take seconds for thousands of parents: the parents are one
(paged) listing, the children one listing per child kind, by Stencil's managed-by label
as the engine's caches hold them, indexed by the parent that controls them; each parent
is then rendered and planned in this process (``engine.core.offline.fleet``), and only a
sample of the applies (``fleetreport.sample``) is sent to the API server as a dry run.

The child kinds listed are those the folder may write (``rendering.allowed_child_kinds``)
and every built-in kind the server serves: a template the new folder removed leaves
children of a kind it no longer names, which must still be found to be shown as pruned.
A custom child kind the new folder no longer names is not listed (say so in the docs).
An object counts as a child only if the engine applied it (it carries the applied hash):
labels are copied by other controllers.  A kind the credentials may not list is skipped,
and said in ``notes`` when the folder may write it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from engine.core.decisions import referencing
from engine.core.decisions.plans import planning
from engine.core.model import apis, errors, kinds
from engine.core.model.identity import ChildId
from engine.core.model.objects import Obj
from engine.core.offline import fleet, fleetreport
from engine.core.templating import rendering
from engine.runtime.cluster.kube import Kube
from engine.runtime.reconciling.caches.children import MANAGED_SELECTOR, owner_index

# Built-in kinds no template makes: listing them would only cost time.
_NEVER_CHILDREN = frozenset({("", "Event"), ("events.k8s.io", "Event"), ("", "ComponentStatus")})


@dataclass
class Fleet:
    """The parents of a kind and the Stencil-managed objects that may be their children."""

    parents: list[Obj]
    by_parent: dict[str, list[Obj]] = field(default_factory=dict)  # by the uid of their controller
    by_id: dict[ChildId, Obj] = field(default_factory=dict)  # every object read, by identity
    notes: list[str] = field(default_factory=list)  # kinds that could not be listed, and why

    @classmethod
    def of(cls, parents: list[Obj], objects: Iterable[Obj]) -> Fleet:
        """The fleet of ``parents``, with ``objects`` (children, or anything else) indexed."""
        found = cls(parents, defaultdict(list))
        for obj in objects:
            found.by_id[ChildId.of(obj)] = obj
            for uid in owner_index(obj):
                found.by_parent[uid].append(obj)
        return found

    def plan(
        self,
        kind: kinds.Kind,
        is_namespaced: fleet.Namespaced | None = None,
        lookup: fleet.Lookup | None = None,
    ) -> list[fleet.ParentPlan]:
        """Every parent planned against its children (and the objects holding its children's names)."""
        return [
            fleet.plan_parent(
                kind,
                parent,
                self.by_parent.get(str(parent["metadata"].get("uid")), []),
                held=self.by_id,
                is_namespaced=is_namespaced,
                lookup=lookup,
            )
            for parent in self.parents
        ]


def read(kube: Kube, kind: kinds.Kind, namespace: str | None) -> Fleet:
    """The parents of ``kind`` (in ``namespace``, or all) and the Stencil-managed objects around them."""
    parents, _ = kube.list(kube.resource(kind.api_version, kind.kind), namespace)
    objects: list[Obj] = []
    notes = []
    kinds_ = sorted(_child_kinds(kube, kind))
    with ThreadPoolExecutor(max_workers=LISTINGS_AT_ONCE) as pool:  # a listing waits on the server
        listings = list(pool.map(lambda kind_: _listed(kube, kind_, namespace), kinds_))
    for (api_version, child_kind), listed in zip(kinds_, listings, strict=True):
        if isinstance(listed, errors.ApiError):
            if child_kind in {k for _, k in rendering.allowed_child_kinds(kind)}:
                notes.append(f"{child_kind} ({api_version}) not listed: {listed}")
            continue
        objects.extend(obj for obj in listed if _applied(obj))
    found = Fleet.of(parents, objects)
    found.notes = notes
    return found


LISTINGS_AT_ONCE = 8


def _listed(kube: Kube, kind: tuple[str, str], namespace: str | None) -> list[Obj] | errors.ApiError:
    """The Stencil-managed objects of one kind, or why they could not be listed."""
    try:
        res = kube.resource(*kind)
        listed, _ = kube.list(res, namespace if res.namespaced else None, label_selector=MANAGED_SELECTOR)
    except errors.ApiError as error:
        return error
    return listed


def _applied(obj: Obj) -> bool:
    """Whether the engine applied ``obj``: its hash says so.  Labels alone do not (the endpoints
    controller copies a Service's labels, parent uid included, onto the Endpoints it makes)."""
    return planning.HASH_ANNOTATION in ((obj.get("metadata") or {}).get("annotations") or {})


def _child_kinds(kube: Kube, kind: kinds.Kind) -> set[tuple[str, str]]:
    """What the folder may write, and every built-in kind at the version the server prefers."""
    preferred = {"": "v1"}
    for group in kube.request("GET", "/apis").get("groups") or ():
        preferred[group["name"]] = group["preferredVersion"]["version"]
    found = set(rendering.allowed_child_kinds(kind))
    named = {(apis.group_of(api_version), child_kind) for api_version, child_kind in found}
    for resource in apis.BUILTIN_RESOURCES:
        group = apis.group_of(resource.api_version)
        listed = "list" in resource.verbs  # a review or a Binding is only ever created, never listed
        if listed and (group, resource.kind) not in _NEVER_CHILDREN | named and group in preferred:
            found.add((f"{group}/{preferred[group]}" if group else "v1", resource.kind))
    return found


def lookup(kube: Kube) -> fleet.Lookup:
    """What a reference reads, listed once per kind and namespace however many parents read it."""
    listed: dict[tuple[str, str, str], list[Obj]] = {}

    def find(target: referencing.Target) -> list[Obj]:
        where = target.where
        key = (where.api_version, where.kind, where.namespace)
        if key not in listed:
            try:
                res = kube.resource(where.api_version, where.kind)
                listed[key], _ = kube.list(res, where.namespace or None)
            except errors.NotFound:
                listed[key] = []
        return listed[key]

    return find


def dry_run(kube: Kube, chosen: Iterable[tuple[str, Obj, bool]]) -> list[fleetreport.Refusal]:
    """Each chosen apply sent as a server-side dry run, a create as a claim of the name as the engine
    makes it; what the server refused, with its message."""
    refused = []
    for parent, obj, create in chosen:
        try:
            kube.apply(obj, dry_run=True, create_only=create)
        except errors.ApiError as error:
            refused.append(fleetreport.Refusal(parent, str(ChildId.of(obj)), error.message))
    return refused
