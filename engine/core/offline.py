"""What the API server would do to a custom resource, learnt from CRD files instead.

``stencil render`` and ``stencil rbac`` work without a cluster, yet a CR should
render offline as it would online: validated against its CRD's schema, given
the schema's defaults, and placed by the CRD's scope.  ``OfflineCrds`` reads a
folder of CRDs and does those three things.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from engine.core import apis, documents, kinds, placement

_CRD = "CustomResourceDefinition"


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

    def __init__(self, crds: list[dict[str, Any]]) -> None:
        self.namespaced: dict[tuple[str, str], bool] = {}
        self.schemas: dict[tuple[str, str], dict[str, Any]] = {}
        for crd in crds:
            spec = crd.get("spec") or {}
            group, kind = spec.get("group", ""), (spec.get("names") or {}).get("kind", "")
            self.namespaced[(group, kind)] = spec.get("scope") != "Cluster"
            for version in spec.get("versions") or ():
                schema = (version.get("schema") or {}).get("openAPIV3Schema")
                if schema:
                    self.schemas[(f"{group}/{version.get('name')}", kind)] = schema

    @classmethod
    def read(cls, directory: Path) -> OfflineCrds:
        return cls(read_crds(directory))

    def is_namespaced(self, api_version: str, kind: str) -> bool:
        known = self.namespaced.get((apis.group_of(api_version), kind))
        return apis.builtin_is_namespaced(api_version, kind) if known is None else known

    def defaulted(self, parent: dict[str, Any]) -> dict[str, Any]:
        """``parent`` with its CRD's defaults filled in (unchanged for a kind without a CRD here)."""
        schema = self.schemas.get((str(parent.get("apiVersion")), str(parent.get("kind"))))
        return with_defaults(schema, parent) if schema else parent

    def admit(self, document: documents.Document, kind: kinds.Kind, namespace: str) -> dict[str, Any] | None:
        """The CR as the API server would keep it (checked, defaulted, namespaced); None for other kinds."""
        data = document.data
        if not isinstance(data, dict):
            raise document.error("a manifest must be a mapping", ())
        if (data.get("apiVersion"), data.get("kind")) != (kind.api_version, kind.kind):
            return None
        document.validate(self._OBJECT)
        schema = self.schemas.get((kind.api_version, kind.kind))
        parent: dict[str, Any] = with_defaults(schema, data) if schema else data
        if schema:
            document.validate(schema, data=parent, closed=True)
        metadata = dict(parent["metadata"])
        metadata.setdefault("uid", placement.NO_UID)  # as if created: templates may read the uid
        if self.is_namespaced(kind.api_version, kind.kind):
            metadata.setdefault("namespace", namespace)
        else:
            metadata.pop("namespace", None)
        return {**parent, "metadata": metadata}


def with_defaults(schema: dict[str, Any], value: Any) -> Any:
    """``value`` with the OpenAPI ``default``s of ``schema`` filled in where fields are missing."""
    if isinstance(value, dict):
        properties: dict[str, Any] = schema.get("properties") or {}
        extra = schema.get("additionalProperties")
        filled = {}
        for key, item in value.items():
            sub = properties.get(key, extra if isinstance(extra, dict) else None)
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
    strictly; none if there is no such folder.  The one reader of CRD files: offline rendering,
    RBAC derivation and installing CRDs all ask it."""
    if not directory.is_dir():
        return []
    files = sorted(p for p in directory.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file())
    return [doc for file in files for doc in documents.load_all(file) if doc.get("kind") == _CRD]


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
