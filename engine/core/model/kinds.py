"""A kind is a folder: what it serves, its child templates, its status rules, its examples.

``templates/<name>/kind.yaml`` names the parent ``apiVersion``/``kind`` and holds
placement permissions and status rules; its ``templates:`` (by default every other
``*.yaml`` or ``*.yaml.j2`` file) are the child templates, ``_*.yaml`` and ``_*.j2`` files the
partials they include (``engine.core.model.sources.folders``); ``examples/`` holds sample CRs.  Loading
is pure apart from reading the folder, and every problem is a ``KindError`` that
names the file, line and field.

Each template has an id, a DNS-1123 label (its file name without ``.yaml`` by
default): templates and status rules read its child as ``children.<id>``, and ``after:`` names
the templates whose children must be healthy before its own are created
(``engine.core.decisions.plans.ordering``).  Ids are checked here, once, so that a typo in
``after:`` or in ``children.<id>``, or two templates waiting for each other, is
a load error at its line rather than a parent that waits for ever.  A template that reads
``children.<id>`` waits for that template as if ``after:`` named it
(``engine.core.model.sources.dependencies``).

``kind.yaml`` is checked against the published JSON Schema
(``engine/schemas/kind.schema.json``) with the ``jsonschema`` library: the schema
stays the single statement of the format, and ``engine.core.model.language.documents`` maps each
complaint to the line of the field it is about (it also holds the strict YAML rules).
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, TypeAlias

from engine.core.model import decorators, references, rollouts, statusrules
from engine.core.model.apis import group_of, unownable_parent
from engine.core.model.errors import KindError
from engine.core.model.language import documents, expressions
from engine.core.model.language.documents import Document
from engine.core.model.language.expressions import Expression
from engine.core.model.references import Reference
from engine.core.model.sources import dependencies, shapes
from engine.core.model.sources.folders import KIND_FILE as KIND_FILE
from engine.core.model.sources.folders import Partial as Partial
from engine.core.model.sources.folders import default_id, is_partial, partials_in, template_files
from engine.core.model.sources.folders import digest as digest
from engine.core.model.sources.folders import kind_folders as kind_folders
from engine.core.model.sources.lifecycle import (
    Lifecycle,
    Teardown,
    load_lifecycle,
    load_teardown,
    reconcile_every,
)
from engine.core.model.statusrules import ConditionRule as ConditionRule
from engine.core.model.statusrules import FieldRule as FieldRule
from engine.core.model.versioning import versions
from engine.core.model.versioning.conversion import Conversion

EXAMPLES_DIR = "examples"
TESTS_DIR = "tests"  # what `stencil test` reads beside the examples: golden files and fixtures

_ID = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_MAX_ID = 63


@dataclass(frozen=True)
class Template:
    """One child template: its path (for error messages), its text, its id and what it waits for.

    ``after`` holds the ids of the templates whose children must all be healthy before
    this template's children are created; ``reads`` the ids it reads as ``children.<id>``,
    found in its text, which it waits for the same way (``waits_for`` holds both).
    ``collection`` and ``ready_when`` are its shape and readiness rules
    (``engine.core.model.sources.shapes``).
    """

    path: Path
    text: str
    id: str = ""  # "" stands for the default, the file name without its suffix
    after: tuple[str, ...] = ()
    collection: bool = False  # renders one child per item: children.<id> is always a list
    ready_when: tuple[Expression, ...] = ()  # all must hold for its children to be ready
    lifecycle: Lifecycle = field(default_factory=Lifecycle)  # its children's deletion, createOnly, applyOnce
    # False: its children's readiness only informs (its own condition, ``ready_condition``): Ready
    # does not wait for them, nor does a template that reads them (``after:`` still does).
    gates_ready: bool = True
    # True: it names fields of objects the kind does not own, applied as the parent's (``patches``).
    patch: bool = False
    reads: tuple[dependencies.Read, ...] = field(init=False)

    def __post_init__(self) -> None:
        if not self.id:
            object.__setattr__(self, "id", default_id(self.path.name))
        object.__setattr__(self, "reads", dependencies.reads_in(self.text))

    @property
    def ready_condition(self) -> str:
        """The condition its children's readiness is said in when it does not gate Ready:
        ``cache-primary``'s is ``CachePrimaryReady``."""
        return "".join(part.capitalize() for part in self.id.split("-")) + "Ready"

    @property
    def waits_for(self) -> tuple[str, ...]:
        """The ids of the templates this one waits for: its ``after:``, then those it reads."""
        return tuple(dict.fromkeys([*self.after, *(read.id for read in self.reads)]))

    @property
    def name(self) -> str:
        return self.path.name


# A file the templates may include, import or extend: a template or a partial.
Source: TypeAlias = Template | Partial


MAX_CHILDREN = 2000  # children a parent may have unless the engine (--max-children) or the kind says fewer


@dataclass(frozen=True)
class Placement:
    """Where children may go beyond the parent's own namespace, and which kinds are allowed."""

    namespaces: tuple[str, ...] = ()  # other namespaces a child may name; "*" means any
    cluster_scoped: bool = False  # cluster-scoped children allowed
    rbac: bool = False  # Role, ClusterRole, RoleBinding, ClusterRoleBinding allowed
    # Namespaces (shell patterns) no child may land in, whatever the above says.  Not kind.yaml's
    # to set: offline it is kube-* and the namespace the install guide puts the engine in; the
    # running engine puts the admin's list here (``stencil run --protected-namespaces``).
    off_limits: tuple[str, ...] = ("kube-*", "stencil-system")
    # Children one parent may have (kind.yaml's maxChildren, at most the engine's; ``MAX_CHILDREN``).
    max_children: int | None = None


@dataclass(frozen=True)
class Kind:
    name: str  # the folder's name
    directory: Path
    api_version: str  # of the parent
    kind: str  # of the parent
    templates: tuple[Template, ...]
    placement: Placement = field(default_factory=Placement)
    conditions: tuple[ConditionRule, ...] = ()
    fields: tuple[FieldRule, ...] = ()
    examples: tuple[Path, ...] = ()
    partials: tuple[Partial, ...] = ()  # what the templates include, import or extend, never rendered
    digest: str = ""  # hash of every file of the folder: changes when the kind changes
    service_account: tuple[str, str] | None = None  # (namespace, name) children are applied as
    observe: tuple[tuple[str, str], ...] = ()  # (apiVersion, kind) of related objects status rules read
    delete_when: Expression | None = None  # the parent is deleted once this is true
    # The CRD ``schema:`` writes (``simpleschema``); None: a hand-written one.
    crd: dict[str, Any] | None = field(default=None, compare=False)
    conversion: Conversion | None = field(default=None, compare=False)  # between its ``versions:``
    references: tuple[Reference, ...] = ()  # objects it reads but does not own
    read_as: str | None = None  # the ServiceAccount, of each parent's namespace, references are read as
    every: float | None = None  # seconds between reconciles of each parent; None: only on events
    teardown: Teardown | None = None  # children deleted in stages when the parent is; None: at once
    rollout: rollouts.Policy | None = None  # how a change reaches its parents; None: all at once
    decorates: decorators.Decorates | None = None  # the existing objects it selects as parents (a decorator)

    @property
    def crd_file_needed(self) -> bool:
        """Whether the parent's CRD is a file to find: not one ``schema:`` writes, nor none at all
        (a decorator's parents are objects of a kind it does not serve)."""
        return self.crd is None and self.decorates is None

    @property
    def sources(self) -> tuple[Source, ...]:
        """Every file its templates may include, import or extend: the templates, then the partials."""
        return (*self.templates, *self.partials)


@dataclass(frozen=True)
class BrokenKind:
    """A kind folder that failed to load, kept so its objects can be told why: ``api_version`` and
    ``kind`` are the parent's when kind.yaml got far enough to say them, to mark its objects."""

    name: str
    directory: Path
    error: KindError
    api_version: str | None = None
    kind: str | None = None


# -- loading ------------------------------------------------------------------------


def load_kind(directory: Path) -> Kind:
    """Load the kind folder ``directory``, or raise ``KindError`` naming the file, line and field."""
    document = Document.read(directory / KIND_FILE)
    document.validate(_schema())
    data = document.data
    parent, decorates = data["parent"], decorators.load(document)  # a decorator's parent is any kind
    if not decorates and (problem := unownable_parent(parent["apiVersion"], parent["kind"])):
        raise _located(document, ("parent", "apiVersion"), problem)
    placement = data.get("placement", {})
    status = data.get("status", {})
    templates = _templates(directory, document)
    conditions, fields = statusrules.load(document, status)
    informing = [(i, t.ready_condition) for i, t in enumerate(templates) if not t.gates_ready]
    statusrules.check_informing(document, informing, conditions)
    delete_when = document.expression(data["deleteWhen"], ("deleteWhen",)) if "deleteWhen" in data else None
    rules = [rule for c in conditions for rule in c.rules]
    read = [*rules, *(f.value for f in fields), *([delete_when] if delete_when else [])]
    shapes.check_child_ids(templates, read)
    referenced = references.load(document, read)
    return Kind(
        name=directory.name,
        directory=directory,
        api_version=parent["apiVersion"],
        kind=parent["kind"],
        templates=templates,
        placement=Placement(
            # A decorator's namespaces are where it selects; its children are in each object's own.
            namespaces=() if decorates else tuple(placement.get("namespaces", ())),
            cluster_scoped=placement.get("clusterScoped", False),
            rbac=placement.get("rbac", False),
            max_children=placement.get("maxChildren"),
        ),
        conditions=conditions,
        fields=fields,
        examples=tuple(sorted(p for p in (directory / EXAMPLES_DIR).glob("*.yaml") if p.is_file())),
        partials=partials_in(directory),
        digest=digest(directory),
        service_account=(sa["namespace"], sa["name"]) if (sa := data.get("serviceAccount")) else None,
        observe=tuple((o["apiVersion"], o["kind"]) for o in data.get("observe", ())),
        delete_when=delete_when,
        references=referenced,
        read_as=data.get("readAs"),
        every=reconcile_every(document),
        teardown=load_teardown(document, {t.id: t.waits_for for t in templates}),
        rollout=rollouts.load(document),
        decorates=decorates,
        crd=versions.crd(document, parent["apiVersion"], parent["kind"]) if "schema" in data else None,
        conversion=versions.conversion(document, parent["apiVersion"]),
    )


def load_kinds(root: Path) -> tuple[dict[str, Kind], dict[str, BrokenKind]]:
    """Every kind folder under ``root``: the good ones and the broken ones, by folder name.

    One broken folder never hides the others.  Folders whose names start with ``.`` or ``_``
    are not kinds.  Two folders serving the same parent are both refused: which should win
    is not something to guess.
    """
    if not root.is_dir():
        raise KindError("the templates folder does not exist", file=str(root))
    loaded: dict[str, Kind] = {}
    broken: dict[str, BrokenKind] = {}
    for directory in kind_folders(root):
        try:
            kind = load_kind(directory)
        except KindError as error:
            broken[directory.name] = BrokenKind(directory.name, directory, error, *_parent_of(directory))
        else:
            loaded[kind.name] = kind
    by_parent: dict[tuple[str, str], list[Kind]] = {}  # by the parent's group and kind, any version
    for kind in loaded.values():
        by_parent.setdefault((group_of(kind.api_version), kind.kind), []).append(kind)
    for (group, parent_kind), serving in by_parent.items():
        if len(serving) < 2:
            continue
        names = ", ".join(k.name for k in serving)
        for kind in serving:
            del loaded[kind.name]
            clash = KindError(
                f"{parent_kind} ({group or 'core'}) is served by more than one kind folder: {names}",
                file=str(kind.directory / KIND_FILE),
                field="parent",
            )
            # No parent here: marking the objects broken would be a guess about which folder is wrong.
            broken[kind.name] = BrokenKind(kind.name, kind.directory, clash)
    return loaded, broken


def _parent_of(directory: Path) -> tuple[str | None, str | None]:
    """The parent's apiVersion and kind from a ``kind.yaml`` that failed to load, if it says them."""
    try:
        document = Document.read(directory / KIND_FILE)
        parent_schema = _schema()["properties"]["parent"]
        parent = document.data["parent"]
        document.validate(parent_schema, ("parent",))
    except (KindError, KeyError, TypeError):
        return None, None
    # A kind built in, or a decorator's (objects it does not serve): its objects are not to mark.
    owned = not unownable_parent(parent["apiVersion"], parent["kind"]) and not decorators.decorates(parent)
    return (parent["apiVersion"], parent["kind"]) if owned else (None, None)


def _templates(directory: Path, document: Document) -> tuple[Template, ...]:
    entries = document.data.get("templates")
    if entries is None:
        templates = [_read(Template(path, "")) for path in template_files(directory)]
        _check_ids(templates, document, listed=False)
        _check_waits(templates, document, listed=False)
        return tuple(templates)
    templates = []
    for index, entry in enumerate(entries):
        where = ("templates", index)
        at_file = (*where, "file") if isinstance(entry, dict) else where
        entry = _entry(document, entry, where)
        path = directory / entry["file"]
        if is_partial(path.name):
            problem = (
                "is a partial (its name starts with _): templates include it, it is never rendered alone"
            )
            raise document.error(f"{entry['file']!r} {problem}", at_file)
        if not path.is_file():
            raise document.error(f"no template file {entry['file']!r} in {directory}", at_file)
        collection = entry.get("collection", False)
        ready = entry.get("readyWhen", [])
        rules = shapes.ready_when(document, ready, (*where, "readyWhen"), collection=collection)
        after, life = tuple(entry.get("after", ())), load_lifecycle(document, entry, where)
        template = Template(
            path, "", entry.get("id", ""), after, collection, rules, life, entry.get("gatesReady", True),
            entry.get("patch", False),
        )  # fmt: skip
        if any(t.path == path for t in templates):
            raise document.error(f"{entry['file']!r} is listed twice", where)
        templates.append(_read(template))
    _check_ids(templates, document, listed=True)
    _check_waits(templates, document, listed=True)
    return tuple(templates)


def _entry(document: Document, entry: object, where: tuple[str, int]) -> dict[str, Any]:
    """A ``templates:`` entry as a mapping, checked against the schema's form for it.

    The schema picks the form by the entry's type (``if``/``then``/``else``), so that a
    problem is reported at the field it is about rather than as "matches neither form";
    checking the chosen form here again keeps that true whichever checker read the schema.
    """
    forms = _schema()["properties"]["templates"]["items"]
    file_name, mapping = forms["then"], forms["else"]
    if isinstance(entry, str):
        document.validate(file_name, where, data=entry)
        return {"file": entry}
    if isinstance(entry, dict):
        document.validate(mapping, where, data=entry)
        return entry
    raise document.error(
        f"must be a file name or a mapping with file and its settings, not {type(entry).__name__}", where
    )


def _read(template: Template) -> Template:
    # The one reader of files: regular files only, bounded in size, UTF-8.
    return dataclasses.replace(template, text=documents.read_text(template.path, KindError))


def _check_ids(templates: Sequence[Template], document: Document, *, listed: bool) -> None:
    """Every id a DNS-1123 label, none used twice, none hidden by the children mapping's methods.

    A listed template's problem is at its line of ``templates:``; a template found by
    looking in the folder has no line there, so its problem names its file.
    """
    seen: dict[str, str] = {}
    for index, template in enumerate(templates):
        entry = document.data["templates"][index] if listed else None
        given = isinstance(entry, dict) and "id" in entry
        problem = _id_problem(template.id)
        if problem is not None and not given:
            problem += f" (from the file name {template.name!r}; give it one: {{file: ..., id: ...}})"
        elif problem is None and template.id in seen:
            problem = f"the id {template.id!r} is used twice: by {seen[template.id]} and {template.name}"
        if problem is not None:
            if not listed:
                raise KindError(problem, file=str(template.path))
            raise _located(document, ("templates", index, "id") if given else ("templates", index), problem)
        seen[template.id] = template.name


def _located(document: Document, where: tuple[str | int, ...], message: str) -> KindError:
    """``document.error`` typed as the ``KindError`` it is for kind.yaml."""
    error = document.error(message, where)
    assert isinstance(error, KindError)
    return error


def _id_problem(template_id: str) -> str | None:
    if len(template_id) > _MAX_ID or not _ID.match(template_id):
        return f"the id {template_id!r} is not a DNS-1123 label (a-z, 0-9 and '-', at most 63 characters)"
    if template_id in expressions.RESERVED_IDS:
        return f"the id {template_id!r} cannot be read as children.{template_id}, a method of the mapping"
    return None


def _check_waits(templates: Sequence[Template], document: Document, *, listed: bool) -> None:
    """Every id in ``after`` and every ``children.<id>`` a template reads names a template, and no
    template waits for itself, however indirectly: each at its line of kind.yaml or of the template."""
    ids = {t.id for t in templates}
    known = ", ".join(sorted(ids))
    for index, template in enumerate(templates):
        for position, needed in enumerate(template.after):
            if needed not in ids:
                where = ("templates", index, "after", position)
                raise _located(document, where, f"no template has the id {needed!r} (ids: {known})")
        for read in template.reads:
            if read.id not in ids:
                message = f"children.{read.id}: no template has the id {read.id!r} (ids: {known})"
                raise KindError(message, file=str(template.path), line=read.line)
    patched = {t.id for t in templates if t.patch}  # a patch makes no child to wait for or read
    for index, template in enumerate(templates):
        if (waited := next((i for i, n in enumerate(template.after) if n in patched), None)) is not None:
            problem = f"{template.after[waited]!r} is a patch: it makes no child to wait for"
            raise _located(document, ("templates", index, "after", waited), problem)
        if misread := next((r for r in template.reads if r.id in patched), None):
            problem = f"children.{misread.id}: {misread.id!r} is a patch, no child: read it with references:"
            raise KindError(problem, file=str(template.path), line=misread.line)
    waits = {t.id: t.waits_for for t in templates}
    for index, template in enumerate(templates):
        cycle = dependencies.cycle_from(template.id, waits)
        if cycle:
            raise _cycle(templates, cycle, document, index if listed else None)


def _cycle(
    templates: Sequence[Template], cycle: list[str], document: Document, index: int | None
) -> KindError:
    """Templates waiting for each other: said at the first ``children.<id>`` read on the cycle, in
    its template, or else at the ``after:`` of the template ``index`` in kind.yaml."""
    by_id = {t.id: t for t in templates}
    steps = []
    first_read: tuple[Template, dependencies.Read] | None = None
    for waiter, needed in itertools.pairwise(cycle):
        read = next((r for r in by_id[waiter].reads if r.id == needed), None)
        if read is not None and needed not in by_id[waiter].after:
            steps.append(f"{waiter} reads children.{needed}")
            first_read = first_read or (by_id[waiter], read)
        else:
            steps.append(f"{waiter} waits for {needed}")
    message = f"templates wait for each other: {', '.join(steps)}"
    if first_read is not None:
        template, read = first_read
        return KindError(message, file=str(template.path), line=read.line, field=f"children.{read.id}")
    assert index is not None  # only kind.yaml's after: makes an edge that is no read
    return _located(document, ("templates", index, "after"), message)


@functools.cache
def _schema() -> dict[str, Any]:
    text = resources.files("engine").joinpath("schemas", "kind.schema.json").read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema
