"""The longest name a parent may have is 253, or what its CRD allows by maxLength or a CEL size rule."""

from __future__ import annotations

from typing import Any

import pytest

from engine.core.offline import childschemas


def schema(
    *, name: dict[str, Any] | None = None, root_rules: list[str] = (), meta_rules: list[str] = ()
) -> Any:
    metadata: dict[str, Any] = {"type": "object"}
    if name is not None:
        metadata["properties"] = {"name": name}
    if meta_rules:
        metadata["x-kubernetes-validations"] = [{"rule": rule} for rule in meta_rules]
    root: dict[str, Any] = {"type": "object", "properties": {"metadata": metadata}}
    if root_rules:
        root["x-kubernetes-validations"] = [{"rule": rule} for rule in root_rules]
    return root


@pytest.mark.parametrize(
    ("crd_schema", "longest"),
    [
        (None, 253),
        (schema(), 253),
        (schema(name={"type": "string", "maxLength": 40}), 40),
        (schema(root_rules=["self.metadata.name.size() <= 52"]), 52),
        (schema(root_rules=["size(self.metadata.name) < 30"]), 29),
        (schema(meta_rules=["self.name.size() <= 20"]), 20),
        (schema(name={"maxLength": 40}, root_rules=["self.metadata.name.size() <= 52"]), 40),
        (schema(root_rules=["self.spec.size <= 5"]), 253),
    ],
)
def test_longest_name(crd_schema: Any, longest: int) -> None:
    assert childschemas.longest_name(crd_schema) == longest
