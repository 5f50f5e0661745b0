"""What the API server would do to a custom resource, learnt from CRD files instead.

``stencil render``, ``stencil lint`` and ``stencil rbac`` work without a cluster, yet a
CR should be taken offline as it would be online: given its CRD schema's defaults,
checked against the schema (``engine.core.model.crds.structural``: types, formats, patterns with
RE2, unknown fields refused as strict field validation refuses them), then against the
CRD's CEL rules (``engine.core.offline.validation_rules``), and placed by the CRD's scope.
``OfflineCrds`` reads a folder of CRDs and does those things.  It also says which of a
kind's rendered children such a cluster would not serve (``OfflineCrds.unserved``: with
the pinned Kubernetes version's own resources, ``engine.core.model.apis``), as the engine
finds it live from discovery.

Each problem is a ``StencilError`` naming the CR's file, line and field.  What could
not be checked offline (a CEL rule cel-python cannot run) is a note, never a silent
pass: ``OfflineCrds.problems`` gives both, for a caller that lists everything;
``admit`` raises the first problem.

CRD files are themselves checked when read, against the parts of the CRD format read
here (``_CRD_FORMAT``, with ``structural.SCHEMA_FORMAT`` for the schemas), so a broken
CRD is an error naming its file, line and field rather than a crash later.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.core.model import apis, kinds
from engine.core.model.children import placement
from engine.core.model.crds import predicates, structural
from engine.core.model.errors import KindError, NotServed, StencilError
from engine.core.model.language import documents
from engine.core.model.versioning import conversion
from engine.core.templating import rendering

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError
    from jsonschema.protocols import Validator

    from engine.core.offline import validation_rules

_CRD = "CustomResourceDefinition"
_CRD_FORMAT: structural.Schema = {
    "definitions": {"schema": structural.SCHEMA_FORMAT},
    "type": "object",
    "required": ["spec"],
    "properties": {
        "spec": {
            "type": "object",
            "required": ["group", "names", "versions"],
            "properties": {
                "group": {"type": "string"},
                "scope": {"enum": ["Namespaced", "Cluster"]},
                "names": {
                    "type": "object",
                    "required": ["kind"],
                    "properties": {"kind": {"type": "string", "minLength": 1}},
                },
                "versions": {
                    "type": "array",
                    "minItems": 1,
                    "items": {
                        "type": "object",
                        "required": ["name"],
                        "properties": {
                            "name": {"type": "string", "minLength": 1},
                            "schema": {
                                "type": "object",
                                "properties": {"openAPIV3Schema": {"$ref": "#/definitions/schema"}},
                            },
                        },
                    },
                },
            },
        }
    },
}
# Type errors, missing required fields and values outside an enum stop the API server
# before the CEL rules, which could not run on such an object; so do they here.
_BLOCKING = frozenset({"type", "required", "enum", "x-kubernetes-int-or-string"})
_SKIPPED_RULES = "the CRD's validation rules were not checked because the object is invalid"


class OfflineCrds:
    """What ``stencil render`` learns from CRD files instead of an API server: scope, defaults, validation."""

    _OBJECT = {
        "type": "object",
        "required": ["metadata"],
        "properties": {
            "metadata": {
                "type": "object",
                "required": ["name"],
                "properties": {"name": {"type": "string", "minLength": 1}, "namespace": {"type": "string"}},
            }
        },
    }

    def __init__(self, crds: Iterable[dict[str, Any]]) -> None:
        """From CRDs already checked against the CRD format (``read_crds``)."""
        self.namespaced: dict[tuple[str, str], bool] = {}
        self.schemas: dict[tuple[str, str], dict[str, Any]] = {}
        self.served: set[tuple[str, str]] = set()  # (apiVersion, kind) of every version a CRD serves
        self._compiled: dict[tuple[str, str], _Compiled] = {}
        for crd in crds:
            spec = crd["spec"]
            group, kind = spec["group"], spec["names"]["kind"]
            self.namespaced[(group, kind)] = spec.get("scope") != "Cluster"
            for version in spec["versions"]:
                key = (f"{group}/{version['name']}", kind)
                if version.get("served", True):
                    self.served.add(key)
                schema = (version.get("schema") or {}).get("openAPIV3Schema")
                if schema:
                    self.schemas[key] = schema

    @classmethod
    def read(cls, directory: Path | None, kinds_: Iterable[kinds.Kind] = ()) -> OfflineCrds:
        """The CRDs under ``directory`` and those ``kinds_`` write (``with_generated``)."""
        return cls(with_generated(directory, kinds_))

    def is_namespaced(self, api_version: str, kind: str) -> bool:
        known = self.namespaced.get((apis.group_of(api_version), kind))
        return apis.builtin_is_namespaced(api_version, kind) if known is None else known

    def serves(self, api_version: str, kind: str) -> bool:
        """Whether a cluster of the pinned Kubernetes version with these CRDs serves ``kind`` in
        ``api_version``, as far as can be known offline.

        A kind with a CRD here is served in the versions it serves, and a kind of a group
        Kubernetes serves itself in those the pinned version serves (``apis.builtin_serves``); a kind
        of another group with no CRD here may be served by a CRD the cluster has, so it is not refused.
        """
        group = apis.group_of(api_version)
        if (group, kind) in self.namespaced:  # the kind's CRD is given: its versions are all there are
            return (api_version, kind) in self.served
        return not apis.is_builtin_group(group) or apis.builtin_serves(api_version, kind)

    def unserved(self, located: Iterable[rendering.Located]) -> list[NotServed]:
        """The refusal of each child of ``located`` that the cluster would not serve (``serves``),
        worded as the engine says it live (``rendering.not_served``), with the versions that are served."""
        refused = []
        for child in located:
            api_version, kind = child.child["apiVersion"], child.child["kind"]
            if self.serves(api_version, kind):
                continue
            group = apis.group_of(api_version)
            if (group, kind) in self.namespaced:
                server = f"the CRD of {kind} given"
                served_in = sorted(
                    v for v, named in self.served if (apis.group_of(v), named) == (group, kind)
                )
            else:
                server = f"the API server of Kubernetes {apis.KUBERNETES_VERSION}"
                served_in = apis.builtin_versions(group, kind)
            refused.append(rendering.not_served(child, server, served_in))
        return refused

    def defaulted(self, parent: dict[str, Any]) -> dict[str, Any]:
        """``parent`` with its CRD's defaults filled in (unchanged for a kind without a CRD here)."""
        schema = self.schemas.get((str(parent.get("apiVersion")), str(parent.get("kind"))))
        return with_defaults(schema, parent) if schema else parent

    def admit(self, document: documents.Document, kind: kinds.Kind, namespace: str) -> dict[str, Any] | None:
        """The CR as the API server would keep it (checked, defaulted, namespaced); None for other kinds.

        Raises the first problem ``problems`` would list."""
        return self.admit_noting(document, kind, namespace)[0]

    def admit_noting(
        self, document: documents.Document, kind: kinds.Kind, namespace: str
    ) -> tuple[dict[str, Any] | None, list[str]]:
        """``admit``, with the notes ``problems`` gives on the checks that could not run offline."""
        found, notes, parent = self.judge(document, kind, namespace)
        if found:
            raise found[0]
        return parent, notes

    def judge(
        self, document: documents.Document, kind: kinds.Kind, namespace: str
    ) -> tuple[list[StencilError], list[str], dict[str, Any] | None]:
        """``problems`` and, when there is none, the CR ``admit`` gives, from one check."""
        found, notes, parent = self._checked(document, kind)
        if found or parent is None:
            return found, notes, None
        metadata = dict(parent["metadata"])
        metadata.setdefault("uid", placement.NO_UID)  # as if created: templates may read the uid
        if self.is_namespaced(kind.api_version, kind.kind):
            metadata.setdefault("namespace", namespace)
        else:
            metadata.pop("namespace", None)
        return found, notes, {**parent, "metadata": metadata}

    def problems(
        self, document: documents.Document, kind: kinds.Kind, namespace: str
    ) -> tuple[list[StencilError], list[str]]:
        """Everything the API server would refuse in the CR ``document``, in line order, and notes
        on the checks that could not run offline; nothing for a document of another kind.

        ``namespace`` is where the CR would be created; the checks do not depend on it today.
        """
        found, notes, _ = self._checked(document, kind)
        return found, notes

    def _checked(
        self, document: documents.Document, kind: kinds.Kind
    ) -> tuple[list[StencilError], list[str], dict[str, Any] | None]:
        """``problems``, and the CR with its defaults (None for a document of another kind)."""
        data = document.data
        if not isinstance(data, dict):
            return [document.error("a manifest must be a mapping", ())], [], None
        if not self._serves(document, kind):
            return [], [], None
        found = [] if _IS_OBJECT(data) else document.problems(self._OBJECT)
        if found:
            return found, [], None  # without a name the server reads no further
        key = (str(data["apiVersion"]), kind.kind)
        schema = self.schemas.get(key)
        if schema is None:
            return [], [], data
        compiled = self._compiled.get(key) or self._compile(key, schema)
        parent = with_defaults(schema, data)
        errors = compiled.problems(parent)
        found = [document.error(error.message, tuple(error.absolute_path)) for error in errors]
        notes: list[str] = []
        if any(error.validator in _BLOCKING for error in errors):
            if compiled.rules:
                notes.append(f"{document.file}:{document.line}: {_SKIPPED_RULES}")
        else:
            violations, unchecked = compiled.rules.check(parent)
            found += [_rule_error(document, violation) for violation in violations]
            notes += [str(document.error(str(note), note.path)) for note in unchecked]
        if not found and key[0] != kind.api_version:
            parent = _at_hub(document, kind, parent, found)
        return sorted(found, key=lambda error: error.line or 0), notes, parent

    def _compile(self, key: tuple[str, str], schema: dict[str, Any]) -> _Compiled:
        # CEL (cel-python, with its own dependencies, 15 MiB) is loaded by the first CR that
        # needs it, not by every process that renders: `stencil run` checks no CR.
        from engine.core.offline import validation_rules

        strict = structural.strict(schema)
        compiled = _Compiled(
            structural.validator_for(strict), predicates.compile(strict), validation_rules.Rules(schema)
        )
        self._compiled[key] = compiled
        return compiled

    @staticmethod
    def _serves(document: documents.Document, kind: kinds.Kind) -> bool:
        """Whether ``document`` is a CR of ``kind``, at its hub or at another of its versions."""
        data = document.data
        if not isinstance(data, dict) or data.get("kind") != kind.kind:
            return False
        versions = [kind.api_version]
        if kind.conversion is not None:
            versions = [f"{kind.conversion.group}/{version}" for version in kind.conversion.versions]
        return data.get("apiVersion") in versions


def _at_hub(
    document: documents.Document, kind: kinds.Kind, parent: dict[str, Any], found: list[StencilError]
) -> dict[str, Any] | None:
    """A CR of another version of ``kind`` as the engine reads it: converted to the hub."""
    assert kind.conversion is not None  # _serves took it
    try:
        converted = kind.conversion.convert(parent, kind.api_version)
    except conversion.ConversionError as failed:
        found.append(document.error(f"cannot be converted to {kind.api_version}: {failed}", ()))
        return None
    defaulted: dict[str, Any] = with_defaults(kind.conversion.hub_schema, converted)
    return defaulted  # as the server defaults what it converts


@dataclass(frozen=True)
class _Compiled:
    """A CRD version's schema made ready once, for every CR of it: strict and its CEL rules."""

    validator: Validator
    valid: predicates.Predicate | None  # the strict schema as a yes-or-no check, to skip the walk
    rules: validation_rules.Rules

    def problems(self, value: Any) -> list[ValidationError]:
        """``structural.problems`` of the strict schema, asked only of a value that breaks it."""
        if self.valid is not None and self.valid(value):
            return []
        return sorted(self.validator.iter_errors(value), key=lambda e: len(e.absolute_path))


_IS_OBJECT = predicates.compile(OfflineCrds._OBJECT) or (lambda _: False)


def _rule_error(document: documents.Document, violation: validation_rules.Violation) -> StencilError:
    """A broken CEL rule as the API server words it, with the rule and the value it judged."""
    from engine.core.offline import validation_rules

    said = validation_rules.reason_text(violation.reason)
    value = structural.shown(violation.value)
    return document.error(f"{violation.message} ({said}: {value}; rule: {violation.rule})", violation.path)


def with_defaults(schema: dict[str, Any], value: Any) -> Any:
    """``value`` with the OpenAPI ``default``s of ``schema`` filled in where fields are missing.

    As on the API server, inside lists and maps too, and after dropping the nulls of
    fields that are not ``nullable`` (so that a null field takes its default).
    """
    if isinstance(value, dict):
        properties: dict[str, Any] = schema.get("properties") or {}
        extra = schema.get("additionalProperties")
        filled = {}
        for key, item in value.items():
            sub = properties.get(key, extra if isinstance(extra, dict) else None)
            if item is None and isinstance(sub, dict) and key in properties and not sub.get("nullable"):
                continue
            filled[key] = with_defaults(sub, item) if sub else item
        for key, sub in properties.items():
            if key not in filled and "default" in sub:
                filled[key] = with_defaults(sub, copy.deepcopy(sub["default"]))
        return filled
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [with_defaults(schema["items"], item) for item in value]
    return value


def read_crds(directory: Path) -> list[dict[str, Any]]:
    """Every CustomResourceDefinition in the YAML files under ``directory`` (at any depth), read
    strictly and checked against the parts of the CRD format Stencil reads; none if there is no
    such folder.  A document that is not a mapping, a CRD without versions and a second CRD for
    one kind are errors at their line: a CRD is never skipped, so a CR is never left unchecked.
    The one reader of CRD files: offline rendering, RBAC derivation and installing CRDs all ask it."""
    return [document.data for document in crd_documents(directory)]


def crd_documents(directory: Path) -> list[documents.Document]:
    """``read_crds``, each CRD with its file and lines (for a finding that names them)."""
    if not directory.is_dir():
        return []
    files = sorted(p for p in directory.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file())
    crds = []
    first: dict[tuple[str, str], str] = {}  # where each group and kind is first defined
    for file in files:
        for document in documents.Document.read_all(file, StencilError):
            document.validate({"type": "object"})  # a list or a scalar is no manifest at all
            if document.data.get("kind") != _CRD:
                continue
            document.validate(_CRD_FORMAT)
            spec = document.data["spec"]
            served = (spec["group"], spec["names"]["kind"])
            if served in first:
                # The API server keeps one CRD a kind; which of two files it would get is a guess.
                raise document.error(
                    f"a second CRD for {served[1]} in {served[0]} (the first is at {first[served]})",
                    ("spec", "names", "kind"),
                )
            first[served] = f"{file}:{document.line}"
            crds.append(document)
    return crds


def with_generated(directory: Path | None, kinds_: Iterable[kinds.Kind]) -> list[dict[str, Any]]:
    """The CRDs under ``directory`` (``read_crds``) and those the kinds write from their ``schema:``.

    A parent has one CRD: a kind that writes one while a file under ``directory`` or under
    one of its ``crd_places`` holds another is an error naming both files, since which of
    the two the API server should get is a guess.
    """
    crds = read_crds(directory) if directory is not None else []
    for kind in kinds_:
        if kind.crd is None:
            continue
        places = {place.resolve() for place in (directory, *crd_places(kind.directory)) if place is not None}
        found = [document for place in sorted(places) for document in crd_documents(place)]
        for document in found:
            spec = document.data["spec"]
            if (spec["group"], spec["names"]["kind"]) == (kind.crd["spec"]["group"], kind.kind):
                file = kind.directory / kinds.KIND_FILE
                raise KindError(
                    f"{kind.kind} has both this schema and a hand-written CRD at "
                    f"{document.file}:{document.line}: keep one of them",
                    file=str(file),
                    line=documents.Document.read(file).line_of(("schema",)),
                    field="schema",
                )
        crds.append(kind.crd)
    return crds


# -- where a kind's CRDs are -------------------------------------------------------------

CRDS_DIR = "crds"


def crd_places(kind_dir: Path) -> tuple[Path, Path]:
    """Where the CRDs of the kind folder ``kind_dir`` are looked for when no folder is named, in order.

    First ``crds/`` inside the kind folder, so a kind can be copied alone with its CRD;
    then ``crds/`` beside the templates folder (``<kind_dir>/../../crds``), the project layout.
    """
    return kind_dir / CRDS_DIR, kind_dir.resolve().parent.parent / CRDS_DIR


def find_crds_dir(kind_dir: Path, parent: tuple[str, str] | None = None) -> Path | None:
    """The first of ``crd_places(kind_dir)`` that is a folder, or None.

    With ``parent`` (its apiVersion and kind), the first that holds that parent's CRD:
    a kind's own ``crds/`` holding only other CRDs does not hide the project's.
    """
    for place in crd_places(kind_dir):
        if place.is_dir() and (parent is None or holds_crd(place, *parent)):
            return place
    return None


def holds_crd(directory: Path, api_version: str, kind: str) -> bool:
    """Whether a CRD under ``directory`` serves ``kind`` at ``api_version``."""
    group, _, version = api_version.rpartition("/")
    for crd in read_crds(directory):
        spec = crd.get("spec") or {}
        names = spec.get("names") or {}
        served = {v.get("name") for v in spec.get("versions") or () if isinstance(v, dict)}
        if spec.get("group") == group and names.get("kind") == kind and version in served:
            return True
    return False
