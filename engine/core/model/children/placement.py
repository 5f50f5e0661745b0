"""Placement: where a rendered child lands, and what it carries back to its parent.

The engine, not the template, decides placement: a child lands in its parent's
namespace; another namespace, a cluster-scoped kind or an RBAC kind is a
``PlacementError`` unless ``kind.yaml`` allows it (``placement:``).

Three refusals hold whatever ``kind.yaml`` says, since a CR's values reach the
templates and a kind must not exceed the rights it was given:

- a child of a kind not derived for the kind (the ``child_kinds`` it is placed
  with: the kinds its templates spell out and its examples render, which is what
  ``stencil rbac`` grants it);
- a child in a namespace off limits (``Placement.off_limits``: ``kube-*`` and
  the engine's own namespace unless the admin says otherwise);
- a child labelled ``stencil.dev/kind-bundle``: the engine would load it as a kind.

Every child
gets Stencil's labels (managed-by, kind, the parent's name, namespace and uid), its template's
lifecycle as annotations (``engine.core.model.sources.lifecycle``) and, where Kubernetes permits one
and the template does not orphan it, a controller owner reference to its parent.  This
module is also the one home of the labels' names.

A parent's name may be 253 characters, a label value only 63: a longer name is
labelled in a bounded form (a prefix and a hash, still unique and selectable)
and written in full in an annotation of the same key.  A child's name and
namespace are checked for what no kind accepts (a ``/``, a newline, a namespace
that is not a DNS label) before anything is sent, so the template line is blamed
rather than the API server's answer.
"""

from __future__ import annotations

import fnmatch
import hashlib
import re
from collections.abc import Callable, Container, Mapping
from dataclasses import dataclass
from typing import Any

from engine.core.model import apis, kinds
from engine.core.model.errors import PlacementError, RenderError
from engine.core.model.sources import lifecycle

# -- what every child carries -----------------------------------------------------

MANAGED_BY_LABEL = "app.kubernetes.io/managed-by"
MANAGED_BY_VALUE = "stencil"
KIND_LABEL = "stencil.dev/kind"
PARENT_NAME_LABEL = "stencil.dev/parent-name"
PARENT_NAMESPACE_LABEL = "stencil.dev/parent-namespace"  # absent for cluster-scoped parents
PARENT_UID_LABEL = "stencil.dev/parent-uid"
# A ConfigMap the engine loads as a kind folder (``engine.runtime.serving.manager``): never a child.
BUNDLE_LABEL = "stencil.dev/kind-bundle"

# Offline (``stencil render``) a parent has no uid yet; a fixed one keeps the output stable.
NO_UID = "00000000-0000-0000-0000-000000000000"

LABEL_VALUE_MAX = 63
_NAMESPACE = re.compile(r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")
_NAME_MAX = 253
# An apiVersion is a version, or a group (a DNS subdomain) and a version (a DNS label).
_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_API_VERSION = re.compile(rf"(?:{_LABEL}(\.{_LABEL})*/)?[a-z]([-a-z0-9]*[a-z0-9])?")

# Metadata the API server keeps for itself: a template that sets one is wrong, whatever the value.
_SERVER_OWNED = (
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "managedFields",
    "selfLink",
)

RBAC_GROUP = "rbac.authorization.k8s.io"
RBAC_KINDS = frozenset({"Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"})

# -- the child kinds a kind's templates spell out ------------------------------------------

_DOCUMENT_SPLIT = re.compile(r"^---\s*$", re.M)
_TOP_LEVEL = re.compile(r"^(apiVersion|kind):[ \t]*([^\s#{}]+)[ \t]*(?:#.*)?$", re.M)


def literal_child_kinds(template_text: str) -> set[tuple[str, str]]:
    """The ``(apiVersion, kind)`` pairs a template spells out at the top level of its documents.

    Only literal values count: a kind computed by an expression is found by
    rendering the kind's examples instead (``rendering.child_kinds``).
    """
    found: set[tuple[str, str]] = set()
    for document in _DOCUMENT_SPLIT.split(template_text):
        # In order, a pair at a time: the branches of an {% if %} may each spell out their own.
        pending: dict[str, str] = {}
        for key, value in _TOP_LEVEL.findall(document):
            pending[key] = value.strip("'\"")
            if "apiVersion" in pending and "kind" in pending:
                found.add((pending["apiVersion"], pending["kind"]))
                pending.clear()
    return found


def spelled_child_kinds(kind: kinds.Kind) -> set[tuple[str, str]]:
    """The ``(apiVersion, kind)`` pairs the kind's templates (but its patches) and partials spell out
    (``literal_child_kinds``)."""
    sources = [s for s in kind.sources if not (isinstance(s, kinds.Template) and s.patch)]
    return {pair for source in sources for pair in literal_child_kinds(source.text)}


def spelled_patch_kinds(kind: kinds.Kind) -> set[tuple[str, str]]:
    """The ``(apiVersion, kind)`` pairs the kind's patch templates spell out: what it may patch."""
    patching = [t for t in kind.templates if t.patch]
    return {pair for template in patching for pair in literal_child_kinds(template.text)}


def off_limits(namespace: str, patterns: tuple[str, ...]) -> str | None:
    """The first of ``patterns`` (shell patterns, ``kube-*``) that ``namespace`` matches, if any."""
    return next((p for p in patterns if fnmatch.fnmatchcase(namespace, p)), None)


# -- placement ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Owner:
    """The parent, as its children refer to it."""

    api_version: str
    kind: str
    name: str
    namespace: str | None  # None: cluster-scoped
    uid: str

    @classmethod
    def of(cls, kind: kinds.Kind, parent: Mapping[str, Any]) -> Owner:
        metadata = parent.get("metadata")
        if parent.get("apiVersion") != kind.api_version or parent.get("kind") != kind.kind:
            raise RenderError(
                f"this kind folder serves {kind.kind} ({kind.api_version}), "
                f"not {parent.get('kind')} ({parent.get('apiVersion')})",
                file=str(kind.directory / kinds.KIND_FILE),
                field="parent",
            )
        if not isinstance(metadata, Mapping) or not _nonempty(metadata.get("name")):
            raise RenderError("the parent has no metadata.name", field="metadata.name")
        namespace = metadata.get("namespace")
        if namespace and not (isinstance(namespace, str) and _NAMESPACE.fullmatch(namespace)):
            # Only a CR read offline can get here (`-n` names a namespace for CRs that name none).
            raise RenderError(
                f"the parent's namespace {namespace!r} is not a DNS label", field="metadata.namespace"
            )
        return cls(
            api_version=kind.api_version,
            kind=kind.kind,
            name=metadata["name"],
            namespace=metadata.get("namespace") or None,
            uid=metadata.get("uid") or NO_UID,
        )

    def reference(self) -> dict[str, Any]:
        return {
            "apiVersion": self.api_version,
            "kind": self.kind,
            "name": self.name,
            "uid": self.uid,
            "controller": True,
            "blockOwnerDeletion": True,
        }

    def labels(self, kind_name: str) -> dict[str, str]:
        labels = {
            MANAGED_BY_LABEL: MANAGED_BY_VALUE,
            KIND_LABEL: kind_name,
            PARENT_NAME_LABEL: label_value(self.name),
        }
        if self.namespace is not None:
            labels[PARENT_NAMESPACE_LABEL] = self.namespace
        labels[PARENT_UID_LABEL] = self.uid
        return labels

    def annotations(self) -> dict[str, str]:
        """The parent's full name, when its label could carry only a bounded form of it."""
        return {} if label_value(self.name) == self.name else {PARENT_NAME_LABEL: self.name}


def label_value(text: str) -> str:
    """``text`` as a label value: itself when it fits 63 characters, else a prefix and a hash of it.

    The hash keeps two long names that share their first 52 characters apart; the
    prefix keeps the label readable.  Names are DNS subdomains, so the prefix is
    made of label characters already; it is cut back to end in one that may end a value.
    """
    if len(text) <= LABEL_VALUE_MAX:
        return text
    digest = hashlib.sha256(text.encode()).hexdigest()[:10]
    prefix = text[: LABEL_VALUE_MAX - len(digest) - 1].rstrip("-._")
    return f"{prefix}-{digest}"


def _nonempty(value: Any) -> bool:
    return isinstance(value, str) and bool(value)


def _name_problem(name: str) -> str | None:
    """What no kind's name may be: the path-segment rules every object name follows."""
    if len(name) > _NAME_MAX:
        return f"a name is at most {_NAME_MAX} characters, this one has {len(name)}"
    if name in (".", "..") or "/" in name or "%" in name:
        return "a name cannot be '.' or '..' or contain '/' or '%'"
    if not name.isprintable() or name != name.strip():
        return "a name cannot contain spaces, line breaks or other control characters"
    return None


def place(
    document: Any,
    owner: Owner,
    kind: kinds.Kind,
    is_namespaced: Callable[[str, str], bool],
    template: kinds.Template,
    child_kinds: Container[tuple[str, str]],
) -> dict[str, Any]:
    """Check a rendered document and give it its namespace, labels and owner reference.

    ``child_kinds`` are the ``(apiVersion, kind)`` pairs the kind may write; any other is refused."""
    file = str(template.path)
    metadata = checked_metadata(document, file)
    api_version, child_kind, name = document["apiVersion"], document["kind"], metadata["name"]
    what = f"{child_kind} {name!r}"

    def refuse(message: str, field: str | None = None) -> PlacementError:
        return PlacementError(f"{what}: {message}", file=file, field=field)

    _refuse_unwritable(api_version, child_kind, metadata, kind.placement, child_kinds, refuse)
    namespace = namespace_of(api_version, child_kind, metadata, owner, kind.placement, is_namespaced, refuse)
    # Owner references cannot cross namespaces, nor a namespaced owner own a cluster-scoped object:
    # such children are tied to the parent by labels only.
    owned = owner.namespace is None or namespace == owner.namespace

    placed_meta: dict[str, Any] = {"name": name}
    if namespace is not None:
        placed_meta["namespace"] = namespace
    placed_meta.update((k, v) for k, v in metadata.items() if k not in ("name", "namespace", "labels"))
    placed_meta["labels"] = {**metadata.get("labels", {}), **owner.labels(kind.name)}
    # A lifecycle is the template entry's to say, never a rendered annotation's (a CR value's).
    written = {k: v for k, v in metadata.get("annotations", {}).items() if k not in lifecycle.ANNOTATIONS}
    placed_meta.pop("annotations", None)
    stamped = {**written, **owner.annotations(), **template.lifecycle.annotations()}
    if kind.teardown is not None:  # which stage of an ordered teardown it goes in
        stamped[lifecycle.TEARDOWN_ANNOTATION] = str(kind.teardown.stage_of(template.id))
    if stamped:
        placed_meta["annotations"] = stamped
    if owned and template.lifecycle.deletion != lifecycle.ORPHAN:  # an orphan is tied by labels alone
        placed_meta["ownerReferences"] = [owner.reference()]
    rest = {k: v for k, v in document.items() if k not in ("apiVersion", "kind", "metadata")}
    return {"apiVersion": api_version, "kind": child_kind, "metadata": placed_meta, **rest}


def checked_metadata(document: Any, file: str) -> dict[str, Any]:
    """The rendered document's metadata, once the document has the shape of an object a
    template may write: apiVersion, kind, a valid name and namespace, none of the fields
    Stencil or the API server set."""
    if not isinstance(document, dict):
        raise RenderError(f"a rendered document must be a mapping, not {type(document).__name__}", file=file)
    for key in ("apiVersion", "kind"):
        if not _nonempty(document.get(key)):
            raise RenderError("a rendered document has no " + key, file=file, field=key)
    if not _API_VERSION.fullmatch(document["apiVersion"]):
        raise RenderError(
            f"a rendered {document['kind']} has apiVersion {document['apiVersion']!r}, which is not "
            "VERSION or GROUP/VERSION (v1, apps/v1)",
            file=file,
            field="apiVersion",
        )
    metadata = document.get("metadata")
    if not isinstance(metadata, dict) or not _nonempty(metadata.get("name")):
        raise RenderError(
            f"a rendered {document['kind']} has no metadata.name", file=file, field="metadata.name"
        )
    what = f"{document['kind']} {metadata['name']!r}"
    for key, expected in (("namespace", str), ("labels", dict), ("annotations", dict)):
        if key in metadata and not isinstance(metadata[key], expected):
            raise RenderError(
                f"{what}: metadata.{key} must be a {expected.__name__}", file=file, field=f"metadata.{key}"
            )
    problem = _name_problem(metadata["name"])
    if problem:
        raise RenderError(f"{what}: {problem}", file=file, field="metadata.name")
    if metadata.get("namespace") and not _NAMESPACE.fullmatch(metadata["namespace"]):
        raise RenderError(
            f"{what}: namespace {metadata['namespace']!r} is not a namespace name (a DNS label: at most "
            "63 lower-case letters, digits and '-'; leave it out for the parent's namespace)",
            file=file,
            field="metadata.namespace",
        )
    if "ownerReferences" in metadata:
        raise RenderError(
            f"{what}: owner references are set by Stencil, not by templates",
            file=file,
            field="metadata.ownerReferences",
        )
    for field in _SERVER_OWNED:
        if field in metadata:
            raise RenderError(
                f"{what}: metadata.{field} is set by the API server, not by templates",
                file=file,
                field=f"metadata.{field}",
            )
    return metadata


def _refuse_unwritable(
    api_version: str,
    child_kind: str,
    metadata: dict[str, Any],
    placement: kinds.Placement,
    child_kinds: Container[tuple[str, str]],
    refuse: Callable[..., PlacementError],
) -> None:
    """Refuse a kind the engine was given no right to write, or may write only when kind.yaml says so."""
    if (api_version, child_kind) not in child_kinds:
        raise refuse(
            f"{child_kind} ({api_version}) is not a child kind derived for this kind, so the engine "
            "was given no right to write it; spell apiVersion and kind out in a template",
            "kind",
        )
    if BUNDLE_LABEL in metadata.get("labels", {}):
        raise refuse(
            f"the label {BUNDLE_LABEL} marks a kind the engine loads; no child may carry it",
            "metadata.labels",
        )
    if apis.group_of(api_version) == RBAC_GROUP and child_kind in RBAC_KINDS and not placement.rbac:
        raise refuse("RBAC objects are refused unless kind.yaml allows them (placement.rbac: true)")


def _refuse_cluster_scoped(
    api_version: str,
    child_kind: str,
    name: str,
    namespace: str | None,
    placement: kinds.Placement,
    refuse: Callable[..., PlacementError],
) -> None:
    if not placement.cluster_scoped:
        raise refuse(
            "cluster-scoped objects are refused unless kind.yaml allows them (placement.clusterScoped: true)"
        )
    if namespace is not None:
        raise refuse(f"{child_kind} is cluster-scoped and cannot have a namespace", "metadata.namespace")
    if (api_version, child_kind) == ("v1", "Namespace"):
        _refuse_off_limits(name, placement.off_limits, refuse, "metadata.name")


def namespace_of(
    api_version: str,
    kind: str,
    metadata: Mapping[str, Any],
    owner: Owner,
    placement: kinds.Placement,
    is_namespaced: Callable[[str, str], bool],
    refuse: Callable[..., PlacementError],
) -> str | None:
    """Where an object the parent writes lies (None: cluster-scoped), once its placement allows it:
    the parent's namespace unless it names one ``placement.namespaces`` allows, never one off limits."""
    namespace: str | None = metadata.get("namespace") or None  # "" means none given, as kubectl reads it
    if is_namespaced(api_version, kind):
        return _namespace_of(namespace, owner, placement, refuse)
    _refuse_cluster_scoped(api_version, kind, metadata["name"], namespace, placement, refuse)
    return None


def _namespace_of(
    namespace: str | None, owner: Owner, placement: kinds.Placement, refuse: Callable[..., PlacementError]
) -> str:
    """A namespaced child's namespace."""
    if namespace is None:
        if owner.namespace is None:
            raise refuse(
                "the parent is cluster-scoped, so its namespaced children must name their namespace",
                "metadata.namespace",
            )
        namespace = owner.namespace
    elif (
        namespace != owner.namespace
        and "*" not in placement.namespaces
        and namespace not in placement.namespaces
    ):
        allowed = ", ".join(placement.namespaces) or "none"
        raise refuse(
            f"namespace {namespace!r} is not allowed (placement.namespaces: {allowed}; "
            "the parent's own namespace always is)",
            "metadata.namespace",
        )
    _refuse_off_limits(namespace, placement.off_limits, refuse, "metadata.namespace")
    return namespace


def _refuse_off_limits(
    namespace: str, patterns: tuple[str, ...], refuse: Callable[[str, str], PlacementError], field: str
) -> None:
    pattern = off_limits(namespace, patterns)
    if pattern is not None:
        raise refuse(
            f"namespace {namespace!r} is off limits to every kind ({pattern!r} among the engine's "
            "protected namespaces), whatever placement.namespaces allows",
            field,
        )
