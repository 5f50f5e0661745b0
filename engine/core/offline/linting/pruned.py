"""Whether the parent's CRD keeps what the engine writes in the parent's status.

The API server drops every field a structural schema does not declare, unless the object
holding it says ``x-kubernetes-preserve-unknown-fields: true``, and the write succeeds all
the same: a hand-written CRD whose status schema declares only ``observedGeneration`` loses
the Ready condition the engine writes, and its parents are never Ready, with no error
anywhere.  What the engine writes is ``engine.core.decisions.status``'s: ``conditions`` and
``observedGeneration`` on every parent, ``kindRevision`` (the revision of the kind its
children come from), which a kind's ``rollout:`` reads back, and one field per
``status.fields`` rule.  What the server drops is ``structural.pruned``'s, the rule offline
admission checks CRs by.  ``stencil lint`` reports each field dropped (``check_pruned_status``);
``stencil test`` says why a parent has no Ready condition (``pruned_conditions``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.core.decisions import conditions, status
from engine.core.model import apis, kinds
from engine.core.model.crds import structural
from engine.core.model.language import documents
from engine.core.model.language.expressions import Expression
from engine.core.offline.linting.findings import Finding

PRUNED = "pruned-status"

# Any time and generation: what is pruned depends on the shape of what is written alone.
_READY = conditions.Condition(status.READY, conditions.TRUE, "Ready", "ready", 1, "2000-01-01T00:00:00Z")
_PRESERVE = "`x-kubernetes-preserve-unknown-fields: true`"


@dataclass(frozen=True)
class Written:
    """A field of the status the engine writes: a value of its shape, what it is for, and the
    status rule that gives it (None for the engine's own fields)."""

    name: str
    value: Any
    why: str
    rule: Expression | None = None


def written(kind: kinds.Kind) -> list[Written]:
    """The fields of ``status`` the engine writes on a parent of ``kind``."""
    found = [
        Written(
            "conditions",
            [_READY.to_dict()],
            "the parent's conditions, Ready among them, which `kubectl wait`, `stencil test`"
            " and a rollout read",
        ),
        Written(
            "observedGeneration",
            1,
            "the generation the status describes, which kstatus compares with metadata.generation",
        ),
    ]
    if kind.rollout is not None:
        why = "the revision of the kind each parent is on: without it the rollout never sees a parent move"
        found.append(Written(status.KIND_REVISION, {"number": 1, "since": _READY.last_transition_time}, why))
    for rule in kind.fields:
        # The value is unknown until the rule runs; whether its name is kept is what is checked.
        found.append(
            Written(rule.name, None, f"the value of kind.yaml's status.fields.{rule.name} rule", rule.value)
        )
    return found


@dataclass(frozen=True)
class Pruned:
    """What the CRD drops of one field the engine writes (the field itself, or parts of it)."""

    field: Written
    paths: tuple[tuple[str | int, ...], ...]  # each dropped, from the resource's root

    def said(self, crd: str) -> str:
        """The sentence naming what ``crd`` (the CRD's name) drops, and what to add for it to keep it."""
        dropped = ", ".join(_dotted(path) for path in self.paths)
        first = self.paths[0]
        owner = _dotted(first[:-1])
        if owner:
            keys = [f"`{path[-1]}`" for path in self.paths if path[:-1] == first[:-1]]
            named = f"a property {keys[0]}" if len(keys) == 1 else f"the properties {', '.join(keys)}"
            advice = f"add {_PRESERVE} to {owner} in the CRD's schema, or {named} to it"
        else:
            advice = f"add a `status` property to the CRD's schema, with {_PRESERVE}"
        return f"the CRD {crd} prunes {dropped}, which the engine writes ({self.field.why}): {advice}"


def pruned(kind: kinds.Kind, schema: Mapping[str, Any]) -> list[Pruned]:
    """What ``schema`` (the ``openAPIV3Schema`` serving ``kind``'s parent) drops of what the engine
    writes, field by field, in the order ``written`` gives them."""
    fields = written(kind)
    resource = {
        "apiVersion": kind.api_version,
        "kind": kind.kind,
        "metadata": {"name": "parent"},
        "status": {field.name: field.value for field in fields},
    }
    dropped = structural.pruned(dict(schema), resource)
    found = []
    for field in fields:
        # A path of ("status",) alone drops every field: status itself is not kept.
        paths = tuple(path for path in dropped if path[1:2] in ((), (field.name,)))
        if paths:
            found.append(Pruned(field, paths))
    return found


def check_pruned_status(kind: kinds.Kind, crds: Sequence[documents.Document]) -> list[Finding]:
    """An error for each field of the status the engine writes that the parent's CRD would prune:
    at the rule's line for a ``status.fields`` rule, else at the CRD's status schema (``crds``, the
    hand-written CRDs found for the kind) or at kind.yaml's ``schema:`` for a CRD written from it."""
    if kind.crd is not None:
        file = kind.directory / kinds.KIND_FILE
        at = (str(file), documents.Document.read(file).line_of(("schema", "status")))
        return _findings(kind, kind.crd, at)
    for document in crds:
        index = _version(document.data, kind)
        if index is not None:
            where = ("spec", "versions", index, "schema", "openAPIV3Schema", "properties", "status")
            return _findings(kind, document.data, (str(document.file), document.line_of(where)))
    return []


def pruned_conditions(kind: kinds.Kind, crds: Sequence[Mapping[str, Any]]) -> str | None:
    """Why a parent of ``kind`` has no Ready condition, when one of ``crds`` serves it and prunes the
    conditions the engine writes; None when the CRD keeps them, or none serves it."""
    for crd in crds:
        index = _version(crd, kind)
        if index is not None:
            found = [p for p in pruned(kind, _schema(crd, index)) if p.field.name == "conditions"]
            return found[0].said(_name(crd)) if found else None
    return None


def _findings(kind: kinds.Kind, crd: Mapping[str, Any], at: tuple[str, int]) -> list[Finding]:
    index = _version(crd, kind)
    if index is None:
        return []
    found = []
    for dropped in pruned(kind, _schema(crd, index)):
        rule = dropped.field.rule
        file, line = (rule.file, rule.line) if rule is not None else at
        message = f"status.{dropped.field.name}: {dropped.said(_name(crd))}"
        found.append(Finding(file, line, None, "error", message, PRUNED))
    return found


def _version(crd: Mapping[str, Any], kind: kinds.Kind) -> int | None:
    """The index in ``spec.versions`` of the version of ``crd`` serving ``kind``'s parent, with a schema."""
    group, version = apis.split_api_version(kind.api_version)
    spec = crd.get("spec") or {}
    if spec.get("group") != group or (spec.get("names") or {}).get("kind") != kind.kind:
        return None
    for index, served in enumerate(spec.get("versions") or ()):
        if isinstance(served, Mapping) and served.get("name") == version and _schema(crd, index):
            return index
    return None


def _schema(crd: Mapping[str, Any], index: int) -> dict[str, Any]:
    served = crd["spec"]["versions"][index]
    schema = (served.get("schema") or {}).get("openAPIV3Schema")
    return schema if isinstance(schema, dict) else {}


def _name(crd: Mapping[str, Any]) -> str:
    return str((crd.get("metadata") or {}).get("name") or crd["spec"]["names"]["kind"])


def _dotted(path: Sequence[str | int]) -> str:
    """A path as a person reads it: ``status.conditions[].reason`` (any item of a list alike)."""
    text = ""
    for part in path:
        text += "[]" if isinstance(part, int) else f".{part}" if text else str(part)
    return text
