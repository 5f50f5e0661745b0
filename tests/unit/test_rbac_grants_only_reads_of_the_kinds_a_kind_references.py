"""The derived RBAC grants ``get/list/watch`` on exactly the kinds a folder references, and no
write: a referenced object is read, never owned."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from engine.core.offline import rbac
from tests.unit import _references as refs

SERVICE = "apiVersion: v1\nkind: Service\nmetadata: {name: x}\n"


def resources(api_version: str, kind_name: str) -> tuple[str, str]:
    return api_version.rpartition("/")[0], kind_name.lower() + "s"


def test_a_referenced_kind_is_granted_reads_only() -> None:
    kind = refs.kind(refs.reference(), refs.reference("token", kind="Secret"), templates=(SERVICE,))
    rules = rbac.derive_rules([dataclasses.replace(kind, directory=Path("/nowhere"))], resources)

    read = [r for r in rules if r["verbs"] == ["get", "list", "watch"] and r["apiGroups"] == [""]]
    assert [r["resources"] for r in read] == [["configmaps", "secrets"]]
    written = {resource for r in rules if "create" in r["verbs"] for resource in r["resources"]}
    assert written == {"events", "services", "kindrollouts"}  # the engine's own KindRollouts beside
