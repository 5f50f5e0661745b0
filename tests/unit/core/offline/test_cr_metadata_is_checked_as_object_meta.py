"""A CR's metadata is checked as the API server checks ObjectMeta, whatever the CRD's schema says of it:
a DNS-subdomain name, label keys and values of the label syntax, and no field ObjectMeta lacks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine.core.model.errors import StencilError
from engine.core.model.language import documents
from engine.core.offline import admission
from tests.unit import _crs, _kinds


def problems(tmp_path: Path, metadata: dict[str, Any]) -> list[StencilError]:
    _crs.write(tmp_path / "crds", "web.yaml", _crs.crd({"type": "object"}, required=["metadata"]))
    crds = admission.OfflineCrds.read(tmp_path / "crds")
    cr = {**_crs.cr({}), "metadata": metadata}
    document = documents.Document.read(_crs.write(tmp_path, "cr.yaml", cr), StencilError)
    found, _ = crds.problems(document, _kinds.kind(), "default")
    return found


@pytest.mark.parametrize(
    ("metadata", "field"),
    [
        ({"name": "Web_1"}, "metadata.name"),
        ({"name": "w", "labels": {"tier": "x" * 64}}, "metadata.labels.tier"),
        ({"name": "w", "labels": {"a/b/c": "x"}}, "metadata.labels.a/b/c"),
        ({"name": "w", "annotation": {"a": "b"}}, "metadata.annotation"),
    ],
)
def test_metadata_the_server_would_refuse_is_refused(
    tmp_path: Path, metadata: dict[str, Any], field: str
) -> None:
    assert field in {error.field for error in problems(tmp_path, metadata)}


def test_ordinary_metadata_is_admitted(tmp_path: Path) -> None:
    metadata = {
        "name": "web.example",
        "labels": {"app.kubernetes.io/name": "web"},
        "annotations": {"a": "b c"},
    }

    assert problems(tmp_path, metadata) == []
