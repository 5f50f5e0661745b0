"""A parent the engine has not seen yet must read as not observed to kstatus (Helm 4's
``--wait=watcher``, Flux, kpt): every CRD Stencil ships or writes from ``schema:`` defaults the
status to ``observedGeneration: 0``, a generation no object has, so the waiters wait for the engine.
The default is declared, so the API server neither prunes it nor refuses the CRD."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from engine.core.model.kinds import load_kinds
from tests.unit import _schema_kinds
from tests.unit._shipped import ROOT

KINDS = {kind.kind for kind in load_kinds(ROOT / "templates")[0].values()}
SHIPPED = [
    path
    for path in sorted((ROOT / "crds").glob("*.yaml"))
    if any(crd and crd["spec"]["names"]["kind"] in KINDS for crd in yaml.safe_load_all(path.read_text()))
]


def _status(crd: dict[str, Any]) -> dict[str, Any]:
    (version,) = [v for v in crd["spec"]["versions"] if v.get("storage")]
    status: dict[str, Any] = version["schema"]["openAPIV3Schema"]["properties"]["status"]
    return status


def _said(status: dict[str, Any]) -> tuple[Any, Any]:
    return status.get("default"), (status.get("properties") or {}).get("observedGeneration", {}).get("type")


def test_a_crd_written_from_schema_defaults_the_status(tmp_path: Path) -> None:
    generated = _schema_kinds.crd(tmp_path, "schema:\n  spec:\n    n: integer\n  status:\n    url: string\n")
    assert _said(_status(generated)) == ({"observedGeneration": 0}, "integer")
    assert "url" in _status(generated)["properties"]  # the kind's own fields kept beside it


@pytest.mark.parametrize("path", SHIPPED, ids=[p.stem for p in SHIPPED])
def test_each_shipped_parent_crd_defaults_the_status(path: Path) -> None:
    for crd in (d for d in yaml.safe_load_all(path.read_text()) if d):
        assert _said(_status(crd)) == ({"observedGeneration": 0}, "integer"), crd["metadata"]["name"]
