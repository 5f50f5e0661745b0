"""``stencil test`` on a parent whose CRD prunes ``status.conditions`` finds no Ready condition: the
engine wrote it, the API server dropped it.  The report says so, naming the CRD and what to add,
instead of only that the engine has not written a Ready condition."""

from __future__ import annotations

from pathlib import Path

import yaml

from engine.core.model import kinds
from engine.tools import kindtest
from tests.unit._lintkinds import API_VERSION, KIND, configmap, crd_with_status, kind_folder

ONLY_GENERATION = {"type": "object", "properties": {"observedGeneration": {"type": "integer"}}}
# What the API server keeps of the engine's status write under that schema.
PARENT = {
    "apiVersion": API_VERSION,
    "kind": KIND,
    "metadata": {"name": "small", "namespace": "ex", "generation": 1},
    "status": {"observedGeneration": 1},
}


def test_a_parent_without_ready_whose_crd_prunes_the_conditions_is_said_so(tmp_path: Path) -> None:
    folder = kind_folder(tmp_path, {"cm.yaml": configmap("  x: y\n")})
    (tmp_path / "crds" / "web.yaml").write_text(yaml.safe_dump(crd_with_status(ONLY_GENERATION)))
    kind = kinds.load_kind(folder)

    said = kindtest.Example(kind, kind.examples[0]).why_not_ready(PARENT)

    assert "webs.example.com prunes status.conditions" in said
    assert "x-kubernetes-preserve-unknown-fields: true" in said and "a property `conditions`" in said


def test_a_parent_without_ready_whose_crd_keeps_the_conditions_says_the_engine_has_not_written_one(
    tmp_path: Path,
) -> None:
    folder = kind_folder(tmp_path, {"cm.yaml": configmap("  x: y\n")})  # its status keeps anything
    kind = kinds.load_kind(folder)

    said = kindtest.Example(kind, kind.examples[0]).why_not_ready(PARENT)

    assert said == "the engine has not written a Ready condition"
