"""What a parent's references point at, and what the caches hold of them: pure, per reconcile.

``targets(kind, parent, is_namespaced)`` turns the kind's ``references:`` into where each
looks for this parent: the name its expression gives (or the selector), in the parent's
namespace, or in the one its ``namespace`` expression gives *if* the kind's placement
allows it (``planning.Reach``, as for children) and it is not off limits
(``placement.off_limits``).  A tenant's CR may pick a name, never a namespace beyond its
parent's reach: such a reference is refused (``PlacementError``, terminal until the CR
changes), so no object of another namespace reaches its templates.

``reader(kind, parent, default, home)`` is whom the engine reads them as: a ServiceAccount of the
parent's own namespace (the kind's ``readAs:``, else the engine's default), impersonated, so that
a parent reads only what its namespace grants that account, never what the engine itself may
read; a cluster-scoped parent's, of the engine's own namespace (``home``).

``resolve(targets, lookup)`` reads what a cache holds for each target and says what
templates and status rules see (``references.<id>``: the object, a list for a selector,
None when missing) and which required references are missing (``Missing``, worded for
the ``ChildrenApplied`` condition).  While one is, the reconcile renders, applies and
prunes nothing: a template that reads a ConfigMap must not run without it, and children
must not be pruned because nothing was rendered.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engine.core.decisions.context import status_context
from engine.core.decisions.plans import planning
from engine.core.model.children import placement
from engine.core.model.errors import PlacementError, ReferenceForbidden, RenderError, StencilError
from engine.core.model.identity import ChildId
from engine.core.model.language import expressions
from engine.core.model.objects import Obj

if TYPE_CHECKING:
    from engine.core.model.kinds import Kind
    from engine.core.model.references import Reference

REFERENCE_NOT_FOUND = "ReferenceNotFound"
REFERENCE_REFUSED = "ReferenceRefused"
DEFAULT_READER = "stencil-reader"  # the ServiceAccount references are read as, unless a kind says


@dataclass(frozen=True)
class Target:
    """Where one reference of one parent looks: an object by name, or those a selector matches."""

    id: str
    where: ChildId  # group, version, kind, namespace ("" if cluster-scoped); the name "" for a selector
    selector: tuple[tuple[str, str], ...] = ()
    optional: bool = False
    reader: str = ""  # whom it is read as (``reader``); "": the caller itself, offline or a person

    def matches(self, obj: Mapping[str, Any]) -> bool:
        """Whether ``obj`` is (one of) what this target reads."""
        found = ChildId.of(obj)
        if (found.group, found.kind, found.namespace) != (
            self.where.group,
            self.where.kind,
            self.where.namespace,
        ):
            return False
        if not self.selector:
            return found.name == self.where.name
        labels = (obj.get("metadata") or {}).get("labels") or {}
        return all(labels.get(key) == value for key, value in self.selector)

    def __str__(self) -> str:
        kind = f"{self.where.kind} {self.where.api_version}"
        if self.selector:
            labels = ",".join(f"{key}={value}" for key, value in self.selector)
            return f"{kind} labelled {labels} in {self.where.namespace or 'the cluster'}"
        where = f"{self.where.namespace}/" if self.where.namespace else ""
        return f"{kind} {where}{self.where.name}"


@dataclass(frozen=True)
class Missing:
    """A required reference whose object is not there (yet)."""

    target: Target

    def __str__(self) -> str:
        return f"reference {self.target.id}: {self.target} not found"


@dataclass(frozen=True)
class Resolved:
    """What a parent's references read now: ``references.<id>``, and the required ones missing."""

    values: Mapping[str, Any] = field(default_factory=dict)
    missing: tuple[Missing, ...] = ()
    refusal: StencilError | None = None  # a reference the parent may not read, or its reader may not


NOTHING = Resolved()


def reader(kind: Kind, parent: Mapping[str, Any], default: str, home: str) -> str:
    """The user ``kind``'s references are read as for ``parent``: the ServiceAccount ``readAs:``
    names (else ``default``) in the parent's namespace, or in ``home`` for a cluster-scoped parent."""
    namespace = (parent.get("metadata") or {}).get("namespace") or home
    return f"system:serviceaccount:{namespace}:{kind.read_as or default}"


def targets(
    kind: Kind, parent: Mapping[str, Any], is_namespaced: Callable[[str, str], bool], reader: str = ""
) -> tuple[Target, ...]:
    """Where each of ``kind``'s references looks for ``parent``, read as ``reader``; a refusal is
    raised, at its line."""
    if not kind.references:
        return ()
    scope = expressions.Scope(status_context(dict(parent), ()))
    home = str((parent.get("metadata") or {}).get("namespace") or "")
    reach = planning.Reach(home, kind.placement.namespaces, kind.placement.cluster_scoped)
    found = []
    for index, reference in enumerate(kind.references):
        namespace = (
            _namespace(reference, index, scope, home)
            if is_namespaced(reference.api_version, reference.kind)
            else ""
        )
        _refuse_beyond(reference, index, namespace, reach, kind.placement.off_limits)
        name = "" if reference.name is None else _name(reference, index, scope)
        where = ChildId.at(reference.api_version, reference.kind, namespace, name)
        found.append(Target(reference.id, where, reference.selector, reference.optional, reader))
    return tuple(found)


def resolve(found: Sequence[Target], lookup: Callable[[Target], list[Obj]]) -> Resolved:
    """``references.<id>`` of each target from what ``lookup`` finds, and the required ones missing."""
    values: dict[str, Any] = {}
    missing = []
    for target in found:
        objects = sorted(
            (obj for obj in lookup(target) if target.matches(obj)), key=lambda obj: ChildId.of(obj).name
        )
        values[target.id] = objects if target.selector else (objects[0] if objects else None)
        if not objects and not target.selector and not target.optional:
            missing.append(Missing(target))
    return Resolved(values, tuple(missing))


def _namespace(reference: Reference, index: int, scope: expressions.Scope, home: str) -> str:
    if reference.namespace is None:
        return home
    value = reference.namespace.evaluate(scope)
    if value is None or value == "":
        return home
    if not isinstance(value, str):
        raise _error(RenderError, reference, index, "namespace", f"the namespace is {value!r}, not a string")
    return value


def _name(reference: Reference, index: int, scope: expressions.Scope) -> str:
    assert reference.name is not None
    value = reference.name.evaluate(scope)
    if not isinstance(value, str) or not value:
        said = "nothing" if value is None or value == "" else repr(value)
        raise _error(RenderError, reference, index, "name", f"the name of reference {reference.id} is {said}")
    return value


def _refuse_beyond(
    reference: Reference, index: int, namespace: str, reach: planning.Reach, off_limits: tuple[str, ...]
) -> None:
    """A reference may read only within the parent's reach, never in a namespace off limits."""
    problem = None
    if not namespace and not reach.cluster_scoped:
        problem = (
            f"{reference.kind} is cluster-scoped, and this kind's placement does not allow clusterScoped"
        )
    elif namespace and not reach.covers({"metadata": {"namespace": namespace}}):
        problem = (
            f"the namespace {namespace!r} is not the parent's, and this kind's placement does not allow it"
        )
    elif namespace and (pattern := placement.off_limits(namespace, off_limits)) is not None:
        problem = f"the namespace {namespace!r} is off limits ({pattern})"
    if problem is not None:
        raise _error(PlacementError, reference, index, "namespace", f"reference {reference.id}: {problem}")


def forbidden(kind: Kind, target: Target, verb: str) -> RenderError:
    """The refusal of a reference whose reader may not ``verb`` where it looks, at its line."""
    index, reference = next((i, r) for i, r in enumerate(kind.references) if r.id == target.id)
    resource = f"{target.where.kind} {target.where.api_version}"
    where = f"in {target.where.namespace}" if target.where.namespace else "cluster-wide"
    message = (
        f"reference {target.id}: {target.reader} may not {verb} {resource} {where}; grant it get, "
        f"list and watch there, or name another account in readAs"
    )
    return ReferenceForbidden(message, file=reference.file, line=reference.line, field=f"references[{index}]")


def _error(cls: type[RenderError], reference: Reference, index: int, key: str, message: str) -> RenderError:
    expression = getattr(reference, key, None)
    line = expression.line if expression is not None else reference.line
    reason = REFERENCE_REFUSED if cls is PlacementError else "ReferenceInvalid"
    return cls(message, file=reference.file, line=line, field=f"references[{index}].{key}", reason=reason)
