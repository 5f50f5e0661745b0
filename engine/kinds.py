"""A kind is a folder: what it serves, its child templates, its status rules, its examples.

``templates/<name>/kind.yaml`` names the parent ``apiVersion``/``kind`` and holds
placement permissions and status rules; every other ``*.yaml`` (or ``*.yaml.j2``)
file in the folder is a child template; ``examples/`` holds sample CRs.  Loading
is pure apart from reading the folder, and every problem is a ``KindError`` that
names the file, line and field.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from engine.expressions import Expression

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
