"""A parent CRD whose status schema says ``x-kubernetes-preserve-unknown-fields: true`` keeps
everything the engine writes there: conditions, observedGeneration, kindRevision and each
``status.fields`` rule's field, so lint says nothing of pruning."""

from __future__ import annotations

from pathlib import Path

from engine.core.offline import linting
from engine.tools import linter
from tests.unit._lintkinds import WRITES_MORE, configmap, kind_folder


def test_lint_finds_nothing_pruned_when_the_status_preserves_unknown_fields(tmp_path: Path) -> None:
    folder = kind_folder(tmp_path, {"cm.yaml": configmap("  x: y\n")}, kind_yaml_extra=WRITES_MORE)

    findings = linter.lint([folder])

    assert linting.PRUNED not in {f.check for f in findings}
    assert [f for f in findings if f.severity == "error"] == []
