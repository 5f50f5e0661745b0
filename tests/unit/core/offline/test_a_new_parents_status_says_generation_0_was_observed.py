"""A parent the engine has not seen yet must read as not observed to kstatus (Helm 4's
``--wait=watcher``, Flux, kpt): every CRD Stencil ships or writes from ``schema:`` defaults the
status to ``observedGeneration: 0``, a generation no object has, so the waiters wait for the engine.
The default is declared, so the API server neither prunes it nor refuses the CRD."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine.core.model.kinds import load_kinds
from engine.core.offline import admission
from tests.unit import _schema_kinds
from tests.unit._shipped import ROOT

LOADED = load_kinds(ROOT / "templates")[0]
# The parents' CRDs the project ships: the hand-written ones of crds/ and those the kinds write.
SHIPPED = {
    crd["metadata"]["name"]: crd
    for crd in admission.with_generated(ROOT / "crds", LOADED.values())
    if crd["spec"]["names"]["kind"] in {kind.kind for kind in LOADED.values()}
}


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


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_each_shipped_parent_crd_defaults_the_status(name: str) -> None:
    assert _said(_status(SHIPPED[name])) == ({"observedGeneration": 0}, "integer")
