"""What ``kubectl explain`` shows of a CRD written from ``schema:``: the spec, the status and
every field the engine adds to the status (its observed generation and its conditions, each
field of a condition) are described, and a field the kind describes keeps its words."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.unit import _schema_kinds


def undescribed(schema: dict[str, Any], path: str) -> list[str]:
    """The fields under ``schema`` without a description."""
    found = [] if schema.get("description") else [path]
    for name, field in (schema.get("properties") or {}).items():
        found += undescribed(field, f"{path}.{name}")
    if isinstance(schema.get("items"), dict):
        found += undescribed(schema["items"], f"{path}[]")
    return found


def test_a_crd_written_from_a_schema_describes_its_spec_and_status(tmp_path: Path) -> None:
    text = (
        'schema:\n  spec:\n    n: integer | description="How many."\n'
        '  status:\n    url: string | description="Where."\n'
    )
    root = _schema_kinds.crd(tmp_path, text)["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    spec, status = root["properties"]["spec"], root["properties"]["status"]

    assert undescribed(spec, "spec") == []
    # A condition is an item of a list: the item itself says nothing of its own, its fields do.
    assert undescribed(status, "status") == ["status.conditions[]"]
    assert (
        spec["description"] == "What the Shop should be; the engine makes and updates its children from it."
    )
    assert status["properties"]["url"]["description"] == "Where."
