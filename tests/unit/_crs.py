"""CRDs and CRs written to a folder, for the tests of offline CR validation.

``definition`` is the one CRD builder of the tests: a namespaced kind with one served, stored
version, so a test names only its group, names and schema.  ``check`` writes a CRD for
``_kinds.KIND`` whose ``spec`` has the given schema, then a CR, and returns what
``OfflineCrds.problems`` says of it, as the tests read it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from engine.core.model.errors import StencilError
from engine.core.model.language import documents
from engine.core.offline import admission
from tests.unit import _kinds

# The fields every object has, typed as a structural schema must; and a field that keeps anything.
OBJECT_FIELDS = {"apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": {"type": "object"}}
PRESERVED = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
# What `kubectl get` shows of every CRD here, so that lint has no printer-columns warning to give.
READY_COLUMNS = [
    {"name": "Ready", "type": "string", "jsonPath": '.status.conditions[?(@.type=="Ready")].status'},
    {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"},
]


def definition(
    group: str, names: dict[str, str], schema: dict[str, Any], *, version: str = "v1", **more: Any
) -> dict[str, Any]:
    """A namespaced CRD of ``group`` whose one version (served and stored) has ``schema`` and shows
    Ready in ``kubectl get``; ``more`` adds to that version (``subresources``) or replaces its columns."""
    served = {
        "name": version,
        "served": True,
        "storage": True,
        "schema": {"openAPIV3Schema": schema},
        "additionalPrinterColumns": READY_COLUMNS,  # after the schema: its lines stay where they were
        **more,
    }
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{names['plural']}.{group}"},
        "spec": {"group": group, "names": names, "scope": "Namespaced", "versions": [served]},
    }


def crd(spec_schema: dict[str, Any], **root: Any) -> dict[str, Any]:
    """A CRD for ``_kinds.KIND`` whose ``spec`` field has the schema ``spec_schema``."""
    group, version = _kinds.API_VERSION.split("/")
    schema = {"type": "object", "properties": {"spec": spec_schema}, **root}
    return definition(group, {"kind": _kinds.KIND, "plural": "webs"}, schema, version=version)


def cr(spec: Any) -> dict[str, Any]:
    return {"apiVersion": _kinds.API_VERSION, "kind": _kinds.KIND, "metadata": {"name": "w"}, "spec": spec}


def write(folder: Path, name: str, data: Any) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(yaml.safe_dump(data, sort_keys=False))
    return folder / name


def check(tmp_path: Path, spec_schema: dict[str, Any], spec: Any) -> tuple[list[StencilError], list[str]]:
    """What ``OfflineCrds.problems`` says of a CR with ``spec`` against a CRD giving ``spec_schema``."""
    write(tmp_path / "crds", "web.yaml", crd(spec_schema))
    crds = admission.OfflineCrds.read(tmp_path / "crds")
    document = documents.Document.read(write(tmp_path, "cr.yaml", cr(spec)), StencilError)
    return crds.problems(document, _kinds.kind(), "default")
