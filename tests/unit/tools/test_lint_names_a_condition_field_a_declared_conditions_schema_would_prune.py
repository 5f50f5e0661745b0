"""``x-kubernetes-preserve-unknown-fields: true`` on status keeps the fields it does not declare, not
the insides of those it does: a ``conditions`` declared with items of only ``type`` and ``status``
loses each condition's reason, message and times.  Lint names what is pruned, and where to add it."""

from __future__ import annotations

from pathlib import Path

import yaml

from engine.core.offline import linting
from engine.tools import linter
from tests.unit._lintkinds import configmap, crd_with_status, kind_folder

ITEM = {"type": "object", "properties": {"type": {"type": "string"}, "status": {"type": "string"}}}
STATUS = {
    "type": "object",
    "x-kubernetes-preserve-unknown-fields": True,
    "properties": {"conditions": {"type": "array", "items": ITEM}},
}


def test_lint_names_the_condition_fields_a_declared_conditions_schema_would_prune(tmp_path: Path) -> None:
    folder = kind_folder(tmp_path, {"cm.yaml": configmap("  x: y\n")})
    (tmp_path / "crds" / "web.yaml").write_text(yaml.safe_dump(crd_with_status(STATUS)))

    findings = [f for f in linter.lint([folder]) if f.check == linting.PRUNED]

    assert [f.message.split(":")[0] for f in findings] == ["status.conditions"]
    message = findings[0].message
    for field in ("observedGeneration", "lastTransitionTime", "reason", "message"):
        assert f"status.conditions[].{field}" in message
    assert "to status.conditions[] in the CRD's schema" in message
