"""A kind is a folder: what it serves, its child templates, its status rules, its examples.

``templates/<name>/kind.yaml`` names the parent ``apiVersion``/``kind`` and holds
placement permissions and status rules; every other ``*.yaml`` (or ``*.yaml.j2``)
file in the folder is a child template; ``examples/`` holds sample CRs.  Loading
is pure apart from reading the folder, and every problem is a ``KindError`` that
names the file, line and field.

``kind.yaml`` is checked against the published JSON Schema
(``engine/schemas/kind.schema.json``) by a small walker over the YAML *nodes*
rather than a JSON Schema library: the schema stays the single statement of the
format, and every complaint can point at the line of the field it is about.
The strict YAML rules and the node-by-node checker are ``engine.core.documents``.
"""

from __future__ import annotations

import functools
import hashlib
import json
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from engine.core.documents import Document
from engine.core.errors import KindError
from engine.core.expressions import Expression

KIND_FILE = "kind.yaml"
EXAMPLES_DIR = "examples"


@dataclass(frozen=True)
class Template:
    """One child template: its path (for error messages) and its text."""

    path: Path
    text: str

    @property
    def name(self) -> str:
        return self.path.name


@dataclass(frozen=True)
class ConditionRule:
    """A custom condition of the parent, computed from the parent and its children."""

    type: str
    status: Expression
    reason: Expression | None = None
    message: Expression | None = None


@dataclass(frozen=True)
class FieldRule:
    """A status field of the parent: ``status.<name>`` = value of the expression."""

    name: str
    value: Expression


@dataclass(frozen=True)
class Placement:
    """Where children may go beyond the parent's own namespace, and which kinds are allowed."""

    namespaces: tuple[str, ...] = ()  # other namespaces a child may name; "*" means any
    cluster_scoped: bool = False  # cluster-scoped children allowed
    rbac: bool = False  # Role, ClusterRole, RoleBinding, ClusterRoleBinding allowed


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
    digest: str = ""  # hash of every file of the folder: changes when the kind changes
    service_account: tuple[str, str] | None = None  # (namespace, name) children are applied as
    observe: tuple[tuple[str, str], ...] = ()  # (apiVersion, kind) of related objects status rules read
    delete_when: Expression | None = None  # the parent is deleted once this is true


@dataclass(frozen=True)
class BrokenKind:
    """A kind folder that failed to load, kept so its objects can be told why.

    ``api_version``/``kind`` are the parent's, when ``kind.yaml`` got far enough
    to say them; the controller then marks that kind's objects with the error.
    """

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
    parent = data["parent"]
    placement = data.get("placement", {})
    status = data.get("status", {})
    return Kind(
        name=directory.name,
        directory=directory,
        api_version=parent["apiVersion"],
        kind=parent["kind"],
        templates=_templates(directory, document),
        placement=Placement(
            namespaces=tuple(placement.get("namespaces", ())),
            cluster_scoped=placement.get("clusterScoped", False),
            rbac=placement.get("rbac", False),
        ),
        conditions=_conditions(document, status.get("conditions", [])),
        fields=tuple(
            FieldRule(name, document.expression(value, ("status", "fields", name)))
            for name, value in status.get("fields", {}).items()
        ),
        examples=tuple(sorted(p for p in (directory / EXAMPLES_DIR).glob("*.yaml") if p.is_file())),
        digest=_digest(directory),
        service_account=_service_account(data.get("serviceAccount")),
        observe=tuple((o["apiVersion"], o["kind"]) for o in data.get("observe", ())),
        delete_when=(
            document.expression(data["deleteWhen"], ("deleteWhen",)) if "deleteWhen" in data else None
        ),
    )


def _service_account(value: dict[str, str] | None) -> tuple[str, str] | None:
    return (value["namespace"], value["name"]) if value else None


def load_kinds(root: Path) -> tuple[dict[str, Kind], dict[str, BrokenKind]]:
    """Every kind folder under ``root``: the good ones and the broken ones, by folder name.

    One broken folder never hides the others.  Folders whose names start with
    ``.`` or ``_`` are not kinds.  Two folders serving the same parent are both
    refused: which one should win is not something to guess.
    """
    if not root.is_dir():
        raise KindError("the templates folder does not exist", file=str(root))
    loaded: dict[str, Kind] = {}
    broken: dict[str, BrokenKind] = {}
    for directory in sorted(p for p in root.iterdir() if p.is_dir() and p.name[:1] not in "._"):
        try:
            kind = load_kind(directory)
        except KindError as error:
            broken[directory.name] = BrokenKind(directory.name, directory, error, *_parent_of(directory))
        else:
            loaded[kind.name] = kind
    by_parent: dict[tuple[str, str], list[Kind]] = {}
    for kind in loaded.values():
        by_parent.setdefault((kind.api_version, kind.kind), []).append(kind)
    for (api_version, parent_kind), serving in by_parent.items():
        if len(serving) < 2:
            continue
        names = ", ".join(k.name for k in serving)
        for kind in serving:
            del loaded[kind.name]
            clash = KindError(
                f"{parent_kind} ({api_version}) is served by more than one kind folder: {names}",
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
    return parent["apiVersion"], parent["kind"]


def _templates(directory: Path, document: Document) -> tuple[Template, ...]:
    names = document.data.get("templates")
    if names is None:
        paths = sorted(
            p
            for p in directory.iterdir()
            if p.is_file() and p.name != KIND_FILE and p.name.endswith((".yaml", ".yaml.j2"))
        )
    else:
        paths = []
        for index, name in enumerate(names):
            path = directory / name
            if not path.is_file():
                raise document.error(f"no template file {name!r} in {directory}", ("templates", index))
            paths.append(path)
    templates = []
    for path in paths:
        try:
            templates.append(Template(path, path.read_text(encoding="utf-8")))
        except UnicodeDecodeError as error:
            raise KindError(f"not UTF-8 text: {error}", file=str(path)) from error
    return tuple(templates)


def _conditions(document: Document, rules: list[dict[str, str]]) -> tuple[ConditionRule, ...]:
    seen: set[str] = set()
    conditions = []
    for index, rule in enumerate(rules):
        where = ("status", "conditions", index)
        if rule["type"] in seen:
            raise document.error(f"condition {rule['type']} is declared twice", (*where, "type"))
        seen.add(rule["type"])
        optional = {
            key: document.expression(rule[key], (*where, key)) for key in ("reason", "message") if key in rule
        }
        conditions.append(
            ConditionRule(rule["type"], document.expression(rule["status"], (*where, "status")), **optional)
        )
    return tuple(conditions)


def _digest(directory: Path) -> str:
    """sha256 over every file of the folder, by relative path and content."""
    digest = hashlib.sha256()
    for path in sorted(p for p in directory.rglob("*") if p.is_file()):
        relative = path.relative_to(directory).as_posix().encode()
        content = path.read_bytes()
        digest.update(b"%d:%s%d:" % (len(relative), relative, len(content)))
        digest.update(content)
    return digest.hexdigest()


@functools.cache
def _schema() -> dict[str, Any]:
    text = resources.files("engine").joinpath("schemas", "kind.schema.json").read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema
