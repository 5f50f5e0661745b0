"""The door a parent is rendered through: the one way every command renders a parent.

The engine's reconcile, ``stencil render`` (with or without ``--status``), ``lint``,
``test``, ``diff``, ``plan``, ``tree`` and the rollout all need the same thing of a
parent: where each of the kind's references looks and what it finds there, then the
children the templates make with those references and the observed children.  When
each caller did that itself, some forgot the references, and offline said something
else than live.  Here it is done once:

- ``references(kind, parent, lookup, is_namespaced)``: what ``references.<id>`` reads,
  found by ``lookup`` (the engine's caches live, the objects given offline), with the
  required ones missing and a reference the parent may not make (refused);
- ``render(kind, parent, observed, resolved)``: the children, each with the line that
  wrote it (``rendering.Located``), and apart from them the patches of objects the kind
  does not own (``engine.core.model.children.patches``); nothing while a required reference is missing,
  which the caller waits for (live) or reports (offline);
- ``offline(kind, parent, observed, fixtures)``: both, from objects as ``kubectl get -o
  yaml`` prints them, read as a cluster holds them: an object that names no namespace is
  in the parent's, as ``kubectl apply`` would create it.  The children and related
  objects are those ``observed`` (``--observed FILE``) in the parent's namespace; a
  reference may find any of them, or of the ``fixtures`` (a kind's ``tests/fixtures.yaml``,
  objects the parent does not control).

The status is derived from the same ``Rendered`` (``outcome``), so its rules and the
kind's ``deleteWhen`` read the same ``references.<id>`` that the templates did.
Everything here is pure.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.core.decisions import referencing, status
from engine.core.decisions.plans import ordering
from engine.core.model import apis, errors, kinds
from engine.core.model.identity import ChildId
from engine.core.model.objects import Obj
from engine.core.templating import places, rendering, sandbox

Lookup = Callable[[referencing.Target], list[Obj]]
IsNamespaced = Callable[[str, str], bool]

# Where offline tools are told to give what a template or rule reads of the cluster.
GIVE_IT = "give it in the kind's tests/fixtures.yaml or with --observed FILE"


@dataclass(frozen=True)
class Rendered:
    """A parent's children as its templates render them, and what its references read."""

    located: tuple[rendering.Located, ...]
    references: referencing.Resolved = referencing.NOTHING
    # What its patch templates set on objects it does not own (``engine.core.model.children.patches``).
    patches: tuple[rendering.Located, ...] = ()

    @property
    def children(self) -> list[Obj]:
        return [one.child for one in self.located]

    @property
    def pairs(self) -> list[tuple[kinds.Template, Obj]]:
        """Each child with the template that made it, as planning and ordering take them."""
        return [(one.template, one.child) for one in self.located]

    @property
    def waiting(self) -> bool:
        """Nothing was rendered: a required reference is missing."""
        return bool(self.references.missing)

    def outcome(self, **more: Any) -> status.Outcome:
        """What the status says of this render, the children applied as ``more`` says
        (``status.Outcome``'s fields); its rules read the same references as the templates."""
        if self.waiting:
            return status.Outcome(references=self.references.values, missing=self.references.missing, **more)
        return status.Outcome(
            desired=tuple(ChildId.of(child) for child in self.children),
            origins=ordering.origins(self.pairs),
            references=self.references.values,
            **more,
        )


def references(
    kind: kinds.Kind, parent: Mapping[str, Any], lookup: Lookup, is_namespaced: IsNamespaced
) -> referencing.Resolved:
    """What the kind's references read for ``parent``, each found by ``lookup``; a reference beyond
    the parent's reach is the ``refusal`` (``PlacementError`` at its line), and reads nothing."""
    try:
        found = referencing.targets(kind, parent, is_namespaced)
    except errors.StencilError as refusal:
        return referencing.Resolved(refusal=refusal)
    return referencing.resolve(found, lookup)


def render(
    kind: kinds.Kind,
    parent: dict[str, Any],
    observed: Sequence[Obj],
    resolved: referencing.Resolved = referencing.NOTHING,
    *,
    is_namespaced: IsNamespaced | None = None,
    limits: sandbox.Limits = sandbox.DEFAULT_LIMITS,
    child_kinds: Container[tuple[str, str]] | None = None,
    trace: places.Trace | None = None,
) -> Rendered:
    """The children ``kind`` renders for ``parent`` reading ``observed`` and ``resolved``; none
    while a required reference is missing.  A refused reference, or a template that does not
    render, raises its ``StencilError`` (file, line and field)."""
    if resolved.refusal is not None:
        raise resolved.refusal
    if resolved.missing:
        return Rendered((), resolved)
    located = rendering.render_located(
        kind,
        parent,
        observed,
        is_namespaced=is_namespaced,
        limits=limits,
        child_kinds=child_kinds,
        references=resolved.values,
        trace=trace,
    )
    children = tuple(one for one in located if not one.template.patch)
    return Rendered(children, resolved, tuple(one for one in located if one.template.patch))


@dataclass(frozen=True)
class Given:
    """Objects given offline, as the parent's namespace of a cluster would hold them."""

    children: list[Obj]  # what the templates and rules read as the parent's children
    related: list[Obj]  # of the kinds kind.yaml observes
    everything: list[Obj]  # what references may find, fixtures included

    def lookup(self, target: referencing.Target) -> list[Obj]:
        return [obj for obj in self.everything if target.matches(obj)]


def given(
    kind: kinds.Kind,
    parent: Mapping[str, Any],
    observed: Sequence[Mapping[str, Any]],
    fixtures: Sequence[Mapping[str, Any]] = (),
    *,
    is_namespaced: IsNamespaced | None = None,
) -> Given:
    """``observed`` and ``fixtures`` read as the cluster would hold them beside ``parent``: one
    that names no namespace, of a namespaced kind, is in the parent's (``kubectl apply`` puts it
    there); the children and related objects are those observed in the parent's namespace."""
    scope = is_namespaced or apis.builtin_is_namespaced
    home = str((parent.get("metadata") or {}).get("namespace") or "")
    seen = [_placed(dict(obj), home, scope) for obj in observed]
    observes = {(apis.group_of(api_version), name) for api_version, name in kind.observe}
    local = [obj for obj in seen if str((obj.get("metadata") or {}).get("namespace") or "") in ("", home)]
    related = [obj for obj in local if apis.group_kind(obj) in observes]
    children = [obj for obj in local if apis.group_kind(obj) not in observes]
    return Given(children, related, [*seen, *(_placed(dict(obj), home, scope) for obj in fixtures)])


def offline(
    kind: kinds.Kind,
    parent: dict[str, Any],
    observed: Sequence[Mapping[str, Any]] = (),
    fixtures: Sequence[Mapping[str, Any]] = (),
    *,
    is_namespaced: IsNamespaced | None = None,
    limits: sandbox.Limits = sandbox.DEFAULT_LIMITS,
    child_kinds: Container[tuple[str, str]] | None = None,
    trace: places.Trace | None = None,
) -> tuple[Rendered, Given]:
    """``render`` with the children, related objects and references read from ``observed`` and
    ``fixtures`` (``given``).  A required reference they do not hold is an error that says where
    to give it: offline, nothing waits for it to appear."""
    found = given(kind, parent, observed, fixtures, is_namespaced=is_namespaced)
    resolved = references(kind, parent, found.lookup, is_namespaced or apis.builtin_is_namespaced)
    if resolved.missing:
        raise errors.RenderError(f"{resolved.missing[0]}: {GIVE_IT}", reason=referencing.REFERENCE_NOT_FOUND)
    rendered = render(
        kind, parent, found.children, resolved,
        is_namespaced=is_namespaced, limits=limits, child_kinds=child_kinds, trace=trace,
    )  # fmt: skip
    return rendered, found


def _placed(obj: Obj, home: str, is_namespaced: IsNamespaced) -> Obj:
    meta = obj.get("metadata")
    if not isinstance(meta, dict) or meta.get("namespace") or not home:
        return obj
    if not is_namespaced(str(obj.get("apiVersion", "")), str(obj.get("kind", ""))):
        return obj
    return {**obj, "metadata": {**meta, "namespace": home}}
