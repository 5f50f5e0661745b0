"""The CRD a kind writes from its ``schema:`` declares the conditions and observedGeneration and
preserves unknown status fields, so nothing the engine writes is pruned, and lint says nothing of it."""

from __future__ import annotations

import shutil
from pathlib import Path

from engine.core.offline import linting
from engine.tools import linter
from tests.unit._lintkinds import configmap, kind_folder

SCHEMA = """schema:
  spec:
    image: string
  status:
    address: string
status:
  fields:
    address: "name ~ ':80'"
    url: "'http://' ~ name"
rollout:
  maxUnavailable: 1
"""


def test_lint_finds_nothing_pruned_in_a_kind_whose_crd_is_written_from_schema(tmp_path: Path) -> None:
    folder = kind_folder(tmp_path, {"cm.yaml": configmap("  x: y\n")}, kind_yaml_extra=SCHEMA)
    shutil.rmtree(tmp_path / "crds")  # the kind writes its own: a CRD file beside it would be a second

    findings = linter.lint([folder])

    assert linting.PRUNED not in {f.check for f in findings}
    assert [f for f in findings if f.severity == "error"] == []
