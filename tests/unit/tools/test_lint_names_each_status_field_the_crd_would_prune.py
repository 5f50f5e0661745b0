"""A parent CRD whose status schema declares only ``observedGeneration`` (and does not preserve
unknown fields) makes the API server drop the rest of what the engine writes, silently: lint names
each such field as an error, the engine's own at the CRD's status schema and a ``status.fields``
rule's at the rule's line."""

from __future__ import annotations

from pathlib import Path

import yaml

from engine.core.model.language.documents import Document
from engine.core.offline import linting
from engine.tools import linter
from tests.unit._lintkinds import WRITES_MORE, configmap, crd_with_status, kind_folder

ONLY_GENERATION = {"type": "object", "properties": {"observedGeneration": {"type": "integer"}}}


def test_lint_names_each_status_field_the_crd_would_prune(tmp_path: Path) -> None:
    folder = kind_folder(tmp_path, {"cm.yaml": configmap("  x: y\n")}, kind_yaml_extra=WRITES_MORE)
    crd_file = tmp_path / "crds" / "web.yaml"
    crd_file.write_text(yaml.safe_dump(crd_with_status(ONLY_GENERATION)))
    status_line = Document.read(crd_file).line_of(
        ("spec", "versions", 0, "schema", "openAPIV3Schema", "properties", "status")
    )
    rule_line = Document.read(folder / "kind.yaml").line_of(("status", "fields", "url"))

    findings = [f for f in linter.lint([folder]) if f.check == linting.PRUNED]

    assert sorted((f.file, f.line, f.severity, f.message.split(":")[0]) for f in findings) == sorted(
        [
            (str(crd_file), status_line, "error", "status.conditions"),
            (str(crd_file), status_line, "error", "status.kindRevision"),
            (str(folder / "kind.yaml"), rule_line, "error", "status.url"),
        ]
    )
    conditions = next(f for f in findings if f.message.startswith("status.conditions"))
    assert "webs.example.com" in conditions.message  # the CRD, by name
    assert "x-kubernetes-preserve-unknown-fields: true" in conditions.message  # what to add
    assert "a property `conditions`" in conditions.message
