"""A refusal that waiting does not cure, read off a parent, and the template line it comes from.

``stencil test`` waits for a parent to become Ready; most of what keeps it from
being Ready passes (a Deployment rolling out, a child waiting for another).  Some
things do not: the API server refusing a child as invalid (422), forbidden (403)
or already there (409, which the engine reports as a ``ChildConflict``), or a
template that does not render.  The engine retries those, so the parent keeps
saying the same thing until the input changes; a test that waits for them only
waits out its timeout.  ``refusal(parent)`` tells them apart, from the conditions
``engine.core.decisions.status`` writes (``ChildrenApplied`` with the API server's reason
and message, ``TemplatesRendered``), and ``located(refusal, children)`` finds the
rendered child the server's message is about, so the refusal can be reported at
the template file and line that wrote it (the field the server names, else the
child's ``metadata.name``).

Pure: the parent and the located render come in, text goes out.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.core.decisions import conditions, status
from engine.core.decisions.plans import refusing
from engine.core.model.identity import ChildId
from engine.core.model.language.documents import FieldPath
from engine.core.templating import rendering

# The engine's own: a child's name held by an object this parent does not control.
CHILD_CONFLICT = "ChildConflict"
# What the engine says of a child the server refused for good, and the server's own reasons,
# which a parent's status still carries for an answer the server gave with another code.
PERMANENT_REASONS = frozenset({refusing.CHILD_REFUSED, *refusing.PERMANENT_API_REASONS, "AlreadyExists"})


@dataclass(frozen=True)
class Refusal:
    """A condition of the parent that says a step failed in a way retrying does not fix."""

    condition: str  # ChildrenApplied or TemplatesRendered
    reason: str
    message: str  # as the engine wrote it: the server's status code and message, or file:line: …


def refusal(parent: Mapping[str, Any]) -> Refusal | None:
    """The parent's permanent refusal at its current generation, or None."""
    generation = (parent.get("metadata") or {}).get("generation")
    for condition in conditions.of(parent):
        if condition.get("status") != conditions.FALSE or condition.get("observedGeneration") != generation:
            continue
        kind = condition.get("type")
        reason = str(condition.get("reason") or "")
        applied = kind == status.CHILDREN_APPLIED and reason in (*PERMANENT_REASONS, CHILD_CONFLICT)
        if applied or kind == status.TEMPLATES_RENDERED:
            return Refusal(str(kind), reason, str(condition.get("message") or ""))
    return None


def located(refusal: Refusal, children: Sequence[rendering.Located]) -> rendering.Located | None:
    """The rendered child the refusal's message is about, or None when it names none of them.

    The engine's own conflict message names the child as ``Kind namespace/name``; the API
    server's names it as ``Kind "name"`` (422) or ``resources "name"`` (403, 409).
    """
    message = refusal.message
    named = [c for c in children if re.search(re.escape(_describe(c.child)) + r"(?![\w.-])", message)]
    if named:
        return named[0]
    quoted = [(c, word) for c in children for word in _words_before(message, _name(c.child))]
    by_kind = [c for c, word in quoted if _is_kind(word, str(c.child.get("kind", "")))]
    if by_kind:
        return by_kind[0]
    return quoted[0][0] if quoted else None


def refused_field(message: str) -> FieldPath:
    """The field an API server's 422 message names first (``spec.clusterIP``), as a path; () if none."""
    found = re.search(r" is invalid: \[?([A-Za-z0-9_.\-\[\]]+): ", message)
    if found is None:
        return ()
    path: list[str | int] = []
    for part in re.findall(r"[^.\[\]]+|\[\d+\]", found.group(1)):
        path.append(int(part[1:-1]) if part.startswith("[") else part)
    return tuple(path)


def report(refusal: Refusal, children: Sequence[rendering.Located]) -> str:
    """``file:line: Kind name: <the server's message>``; the message alone when no child is named."""
    child = located(refusal, children)
    if child is None:
        return f"{refusal.condition} is False ({refusal.reason}): {refusal.message}"
    field = _written(child.child, refused_field(refusal.message))
    file, line = child.where(field or ("metadata", "name"))
    return f"{file}:{line}: {child.child.get('kind')} {_name(child.child)}: {refusal.message}"


def _written(child: Mapping[str, Any], path: FieldPath) -> FieldPath:
    """``path``, with a list the server fills from a field of the template taken as that field:
    a Service's ``spec.clusterIPs`` is made from the ``spec.clusterIP`` the template wrote."""
    value: Any = child
    for index, part in enumerate(path):
        if isinstance(value, Mapping):
            if part not in value:
                singular = part[:-1] if isinstance(part, str) and part.endswith("s") else None
                return (*path[:index], singular) if singular is not None and singular in value else path
            value = value[part]
        elif isinstance(value, list) and isinstance(part, int) and 0 <= part < len(value):
            value = value[part]
        else:
            return path
    return path


def _describe(child: Mapping[str, Any]) -> str:
    return str(ChildId.of(child))


def _name(child: Mapping[str, Any]) -> str:
    return str((child.get("metadata") or {}).get("name", ""))


def _words_before(message: str, name: str) -> list[str]:
    """The words directly before each ``"name"`` in the message (``Service``, ``services``)."""
    return re.findall(r'([A-Za-z0-9.\-]*) "' + re.escape(name) + '"', message) if name else []


def _is_kind(word: str, kind: str) -> bool:
    """Whether ``word`` is ``kind`` as a message spells it: ``Service``, ``Widget.tests.stencil.dev``,
    ``services``, ``networkpolicies``."""
    base, k = word.split(".")[0].lower(), kind.lower()
    return bool(k) and base in {k, k + "s", k + "es", k[:-1] + "ies"}
