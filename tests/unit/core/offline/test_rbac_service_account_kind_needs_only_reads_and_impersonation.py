"""A kind that applies as its own ServiceAccount leaves the engine reads of its children and
the right to impersonate that one account, not to write the children itself."""

import dataclasses
from pathlib import Path

from engine.core.offline import rbac
from tests.unit._kinds import kind


def resources(api_version: str, kind_name: str) -> tuple[str, str]:
    group = api_version.rpartition("/")[0]
    return group, kind_name.lower() + "s"


CONFIGMAP = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"


def test_children_of_an_impersonating_kind_are_read_only_for_the_engine() -> None:
    web = dataclasses.replace(
        kind(CONFIGMAP), service_account=("tenant-a", "writer"), directory=Path("/nowhere")
    )

    rules = rbac.derive_rules([web], resources)

    configmaps = [r for r in rules if "configmaps" in r["resources"]]
    assert [r["verbs"] for r in configmaps] == [["get", "list", "watch"]]
    assert {
        "apiGroups": [""],
        "resources": ["serviceaccounts"],
        "resourceNames": ["writer"],
        "verbs": ["impersonate"],
    } in rules


def test_a_kind_applying_as_the_engine_grants_no_impersonation() -> None:
    rules = rbac.derive_rules([dataclasses.replace(kind(CONFIGMAP), directory=Path("/nowhere"))], resources)

    assert not any("impersonate" in r["verbs"] for r in rules)
    assert [r["verbs"] for r in rules if "configmaps" in r["resources"]] == [
        ["create", "delete", "get", "list", "patch", "watch"]
    ]
