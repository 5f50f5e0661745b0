"""``stencil tree``: a parent's family read from a cluster, for ``engine.core.offline.family`` to judge.

Read-only and the engine's way: the children are those labelled with the parent's uid that
it controls (``diffing.live_children``), the references are looked for where
``decisions.referencing`` says (``door.references``), the related objects are those of the kind's ``observe:``
kinds labelled with the parent's uid, and the templates are rendered against what was
found, so each child is known by the template that makes it.  A render that fails now
(a reference missing, say) leaves the children as they are, judged by kstatus: the
parent's own Ready condition says why.
"""

from __future__ import annotations

import datetime

from engine.core import door
from engine.core.decisions import conditions, referencing
from engine.core.model import errors, kinds
from engine.core.model.identity import ChildId
from engine.core.model.objects import Obj
from engine.core.offline import family
from engine.runtime.cluster.kube import Kube
from engine.tools import diffing


def find_kind(loaded: list[kinds.Kind], name: str, kube: Kube | None = None) -> kinds.Kind:
    """The kind whose parent kind (or folder) is ``name``, in any case: ``DeployWebService``,
    ``deploywebservice``; or, asked of ``kube``'s discovery, its plural or a short name, as
    ``kubectl get`` reads them: ``deploywebservices``, ``dws``."""
    for kind in loaded:
        if name.lower() in (kind.kind.lower(), kind.name.lower()):
            return kind
    for kind in loaded:
        if kube is None:
            break
        try:
            served = kube.resource(kind.api_version, kind.kind)
        except errors.NotFound:
            continue  # its CRD is not installed: no names to read
        if name.lower() in (served.plural, *served.short_names):
            return kind
    known = ", ".join(sorted(kind.kind for kind in loaded)) or "none"
    raise errors.StencilError(f"no kind folder serves {name} (the folders serve: {known})")


def gather(kube: Kube, kind: kinds.Kind, name: str, namespace: str) -> family.Family:
    """What the cluster holds of the parent ``name`` now, and what its templates render for it."""
    namespaced = kube.is_namespaced(kind.api_version, kind.kind)
    where = namespace if namespaced else None
    parent = kube.get(kube.resource(kind.api_version, kind.kind), name, where)
    if parent is None:
        raise errors.StencilError(f"{kind.kind} {f'{where}/' if where else ''}{name} not found")
    looked: list[tuple[referencing.Target, list[Obj]]] = []  # each reference and what it found

    def lookup(target: referencing.Target) -> list[Obj]:
        looked.append((target, diffing.live_lookup(kube, target)))
        return looked[-1][1]

    resolved = door.references(kind, parent, lookup, kube.is_namespaced)  # refused: Ready says so
    observed = diffing.live_children(kube, kind, parent, resolved)
    try:
        made = door.render(kind, dict(parent), observed, resolved, is_namespaced=kube.is_namespaced)
        rendered = [(one.template.id, ChildId.of(one.child)) for one in made.located]
        patched = [(one.template.id, one.child, _live(kube, one.child)) for one in made.patches]
    except errors.StencilError:
        rendered, patched = [], []
    related = [
        obj
        for api_version, observed_kind in kind.observe
        for obj in diffing.labelled(kube, api_version, observed_kind, parent["metadata"]["uid"])
    ]
    now = conditions.timestamp(datetime.datetime.now(datetime.UTC))
    return family.Family(kind, parent, rendered, observed, looked, related, now, patched)


def _live(kube: Kube, patch: Obj) -> Obj | None:
    """The object a patch names, as the server has it (None: there is none)."""
    meta = patch["metadata"]
    return kube.get(kube.resource(patch["apiVersion"], patch["kind"]), meta["name"], meta.get("namespace"))
