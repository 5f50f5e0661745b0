"""A child's life beyond its render: what becomes of it when it is no longer rendered or its parent
goes, whether it is ever updated, and which of its fields other writers keep.

A ``templates:`` entry of kind.yaml may say, for its children:

- ``deletionPolicy``: ``Delete`` (the default: deleted when no longer rendered, and with the
  parent), ``Orphan`` (never deleted by the engine: no owner reference ties it to the parent, and
  when it is no longer rendered or the parent goes, the engine lets it go, taking off its labels,
  so that no later prune can find it), or ``Retain`` (kept when no longer rendered, still the
  parent's, and deleted with it);
- ``createOnly``: created once and never updated, nor pruned when its template changes or stops
  rendering it (a generated password, a one-time Job); deleted with the parent unless orphaned;
- ``applyOnce``: fields (``spec.replicas``, ``metadata.annotations["example.com/x"]``) applied when
  the child is created and then left to other writers: never put back, never reported as
  contested, and never removed by the engine's later applies, which carry what the server holds;
- ``adopt``: an object of the child's name that no controller holds, and no other parent by
  Stencil's labels, is taken over (``engine.core.decisions.plans.planning.adoptable``) rather than
  reported as a conflict; one another controller holds is never taken;
- ``updateStrategy``: what an update the API server refuses as invalid (an immutable field, a
  Pod's spec) leads to: ``InPlace`` (the default: refused, and said), ``Recreate`` (deleted,
  waited for until gone, created again) or, for a collection, ``RollingRecreate`` (the same, the
  last items first, while at most ``maxUnavailable`` of the collection's children are missing,
  going or not ready).

A kind may also ask for each parent to be reconciled again every so often, for what no watch
tells of (the time, a state outside the cluster): kind.yaml's ``reconcileEvery`` (``30s``,
``5m``, ``1h``), read by ``reconcile_every``.  And it may ask for an ordered teardown
(``teardown``): when a parent is deleted, its children go in the reverse of the order they were
made in (``after:`` and ``children.<id>`` reads), each stage waited for until gone, under the
parent's finalizer, for at most ``timeout``; each child carries its stage (``TEARDOWN_ANNOTATION``).

Each child carries its template's policy in annotations (``annotations``), so that a child no
longer rendered is pruned or let go as its template said when it was rendered, and ``planning``
reads it back from the object (``of``): one place decides from what the object says.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.core.model import rollouts
from engine.core.model.language.documents import Document
from engine.core.model.sources.folders import default_id

DELETE, ORPHAN, RETAIN = "Delete", "Orphan", "Retain"
POLICY_ANNOTATION = "stencil.dev/deletion-policy"
CREATE_ONLY_ANNOTATION = "stencil.dev/create-only"
APPLY_ONCE_ANNOTATION = "stencil.dev/apply-once"
ADOPT_ANNOTATION = "stencil.dev/adopt"
# "Recreate", or "RollingRecreate;<maxUnavailable>;<template id>": the collection it is counted in.
UPDATE_ANNOTATION = "stencil.dev/update-strategy"
TEARDOWN_ANNOTATION = "stencil.dev/teardown-stage"  # a child of a kind with an ordered teardown
ANNOTATIONS = (
    POLICY_ANNOTATION,
    CREATE_ONLY_ANNOTATION,
    APPLY_ONCE_ANNOTATION,
    ADOPT_ANNOTATION,
    UPDATE_ANNOTATION,
    TEARDOWN_ANNOTATION,
)
IN_PLACE, RECREATE, ROLLING_RECREATE = "InPlace", "Recreate", "RollingRecreate"
TEARDOWN_TIMEOUT = 600.0  # seconds an ordered teardown waits, unless kind.yaml says

Path = tuple[str | int, ...]
# One step of a field path: a name, a quoted key (``["example.com/x"]``) or a list index (``[0]``,
# which parses, to be refused: a list is applied, or handed to other writers, whole).
_STEP = re.compile(r'\.?([A-Za-z_][A-Za-z0-9_-]*)|\["([^"]+)"\]|\[(\d+)\]')
# What identifies the object, or is the engine's own: never handed to another writer.
_NOT_HANDED = ("apiVersion", "kind", "metadata.name", "metadata.namespace", "metadata.ownerReferences")


@dataclass(frozen=True)
class Lifecycle:
    """What a template says of its children's life (see the module docstring)."""

    deletion: str = DELETE
    create_only: bool = False
    apply_once: tuple[str, ...] = ()  # field paths as written
    adopt: bool = False
    update: str = IN_PLACE
    max_unavailable: int = 1  # RollingRecreate: of the collection, at most this many down at once
    collection: str = ""  # RollingRecreate: the template whose children count together
    line: int = field(default=0, compare=False)  # of its templates: entry in kind.yaml, for a message

    @property
    def paths(self) -> tuple[Path, ...]:
        return tuple(parse(text) for text in self.apply_once)

    def annotations(self) -> dict[str, str]:
        """What each child carries of it: nothing for the defaults."""
        found = {}
        if self.deletion != DELETE:
            found[POLICY_ANNOTATION] = self.deletion
        if self.create_only:
            found[CREATE_ONLY_ANNOTATION] = "true"
        if self.apply_once:
            found[APPLY_ONCE_ANNOTATION] = ",".join(self.apply_once)
        if self.adopt:
            found[ADOPT_ANNOTATION] = "true"
        if self.update == RECREATE:
            found[UPDATE_ANNOTATION] = RECREATE
        elif self.update == ROLLING_RECREATE:
            found[UPDATE_ANNOTATION] = f"{ROLLING_RECREATE};{self.max_unavailable};{self.collection}"
        return found

    def __str__(self) -> str:
        """How plans, trees and graphs say it: ``Orphan, createOnly, applyOnce spec.replicas``."""
        said = [self.deletion] if self.deletion != DELETE else []
        said += ["createOnly"] if self.create_only else []
        said += [f"applyOnce {', '.join(self.apply_once)}"] if self.apply_once else []
        said += ["adopt"] if self.adopt else []
        said += [self.update] if self.update != IN_PLACE else []
        return ", ".join(said)


def of(obj: Mapping[str, Any]) -> Lifecycle:
    """The lifecycle an object carries (what its template said when it was rendered)."""
    annotations = (obj.get("metadata") or {}).get("annotations") or {}
    if not any(key in annotations for key in _OWN):  # most children: read on every plan, at once
        return _DEFAULT
    deletion = annotations.get(POLICY_ANNOTATION, DELETE)
    paths = annotations.get(APPLY_ONCE_ANNOTATION, "")
    return Lifecycle(
        deletion if deletion in (DELETE, ORPHAN, RETAIN) else DELETE,
        annotations.get(CREATE_ONLY_ANNOTATION) == "true",
        tuple(p for p in _split(paths) if _parses(p)),
        annotations.get(ADOPT_ANNOTATION) == "true",
        *_update_of(annotations.get(UPDATE_ANNOTATION, "")),
    )


_DEFAULT = Lifecycle()
_OWN = tuple(key for key in ANNOTATIONS if key != TEARDOWN_ANNOTATION)  # a template's, not its kind's


def _update_of(text: str) -> tuple[str, int, str]:
    """An update strategy annotation read back: the strategy, its bound and its collection."""
    strategy, _, rest = text.partition(";")
    bound, _, collection = rest.partition(";")
    if strategy == ROLLING_RECREATE and bound.isdigit() and int(bound) >= 1:
        return ROLLING_RECREATE, int(bound), collection
    return (RECREATE, 1, "") if strategy == RECREATE else (IN_PLACE, 1, "")


def load_lifecycle(document: Document, entry: Mapping[str, Any], where: tuple[str | int, ...]) -> Lifecycle:
    """The lifecycle of a ``templates:`` entry (the schema checked its shape); a path that is no
    field path, or names what no other writer may keep, is an error at its place."""
    if entry.get("patch") and (extra := sorted(set(entry) - {"file", "id", "collection", "patch"})):
        problem = "a patch template takes only file, id and collection: it makes no child"
        raise document.error(problem, (*where, extra[0]))
    paths = tuple(entry.get("applyOnce", ()))
    for index, text in enumerate(paths):
        at = (*where, "applyOnce", index)
        if not _parses(text) or "," in text:
            raise document.error(f'{text!r} is not a field path (spec.replicas, metadata.labels["x"])', at)
        if any(isinstance(step, int) for step in parse(text)):
            raise document.error(f"{text!r} names a list item: a list is applied whole, or handed whole", at)
        if any(text == p or text.startswith(p + ".") for p in _NOT_HANDED):
            raise document.error(f"{text!r} names the object or ties it to its parent: the engine's", at)
    if entry.get("createOnly") and paths:
        raise document.error("a createOnly child is applied once whole: applyOnce says nothing more", where)
    deletion, adopt = entry.get("deletionPolicy", DELETE), bool(entry.get("adopt", False))
    update, bound = entry.get("updateStrategy", IN_PLACE), entry.get("maxUnavailable")
    if update != IN_PLACE and entry.get("createOnly"):
        raise document.error("a createOnly child is never updated: it has no updateStrategy", where)
    if update == ROLLING_RECREATE and not entry.get("collection"):
        raise document.error(
            "RollingRecreate is for a collection; one child is recreated with Recreate", where
        )
    if bound is not None and update != ROLLING_RECREATE:
        raise document.error("maxUnavailable bounds a RollingRecreate, and this template has none", where)
    collection = entry.get("id") or default_id(entry["file"]) if update == ROLLING_RECREATE else ""
    create_only, line = bool(entry.get("createOnly", False)), document.line_of(where)
    return Lifecycle(deletion, create_only, paths, adopt, update, bound or 1, collection, line)


def parse(text: str) -> Path:
    """``spec.containers[0]["x.y"]`` as ``("spec", "containers", 0, "x.y")``."""
    path: list[str | int] = []
    for match in _STEP.finditer(text):
        name, key, index = match.groups()
        path.append(int(index) if index is not None else (name if name is not None else key))
    return tuple(path)


def _parses(text: str) -> bool:
    steps = list(_STEP.finditer(text))
    return bool(steps) and "".join(m.group(0) for m in steps) == text and not text.startswith((".", "["))


def _split(text: str) -> list[str]:
    return [part for part in text.split(",") if part]


def _seconds(document: Document, given: Any, where: tuple[str, ...]) -> float:
    """A duration of kind.yaml (the schema checked its form) in seconds, as a rollout's is read."""
    seconds = rollouts.duration(str(given))
    if not seconds:
        raise document.error(f"{given!r} is not a duration such as 30s, 5m or 1h", where)
    return seconds


def reconcile_every(document: Document) -> float | None:
    """kind.yaml's ``reconcileEvery`` in seconds; None if not given."""
    given = document.data.get("reconcileEvery")
    return None if given is None else _seconds(document, given, ("reconcileEvery",))


@dataclass(frozen=True)
class Teardown:
    """An ordered teardown: each template's stage (the last made go first), and how long it waits."""

    stages: tuple[tuple[str, int], ...]  # (template id, stage): 0 for those made first
    timeout: float = TEARDOWN_TIMEOUT

    def stage_of(self, template_id: str) -> int:
        return dict(self.stages).get(template_id, 0)


def load_teardown(document: Document, waits: Mapping[str, Sequence[str]]) -> Teardown | None:
    """kind.yaml's ``teardown`` over templates that wait for others as ``waits`` says (id: the ids
    it waits for; the loader refused cycles); None if the kind asks for none."""
    given = document.data.get("teardown")
    if not given or not given.get("ordered", False):
        return None
    timeout = (
        _seconds(document, given["timeout"], ("teardown", "timeout"))
        if "timeout" in given
        else TEARDOWN_TIMEOUT
    )
    stages: dict[str, int] = {}

    def stage(template_id: str) -> int:
        if template_id not in stages:
            stages[template_id] = 1 + max(
                (stage(i) for i in waits.get(template_id, ()) if i in waits), default=-1
            )
        return stages[template_id]

    return Teardown(tuple((template_id, stage(template_id)) for template_id in waits), timeout)
