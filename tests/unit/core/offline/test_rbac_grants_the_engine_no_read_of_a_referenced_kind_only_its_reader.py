"""The derived RBAC grants the engine no read of the kinds a folder references, since it reads
them as a ServiceAccount of each parent's namespace: it may impersonate accounts of that one name
(the kind's ``readAs``, else the default), and the ClusterRole ``<name>-reader``, for a namespace
to bind to that account, reads exactly the referenced kinds and writes nothing."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from engine.core.model.kinds import Kind
from engine.core.offline import rbac
from tests.unit import _references as refs

SERVICE = "apiVersion: v1\nkind: Service\nmetadata: {name: x}\n"


def resources(api_version: str, kind_name: str) -> tuple[str, str]:
    return api_version.rpartition("/")[0], kind_name.lower() + "s"


def _kind(read_as: str | None = None) -> Kind:
    kind = refs.kind(refs.reference(), refs.reference("token", kind="Secret"), templates=(SERVICE,))
    return dataclasses.replace(kind, directory=Path("/nowhere"), read_as=read_as)


def test_the_engine_reads_no_referenced_kind_and_impersonates_only_the_reader() -> None:
    rules = rbac.derive_rules([_kind()], resources)
    granted = {resource for r in rules for resource in r["resources"]}
    assert "secrets" not in granted and "configmaps" not in granted, rules
    (impersonate,) = [r for r in rules if "impersonate" in r["verbs"]]
    assert impersonate == {
        "apiGroups": [""],
        "resources": ["serviceaccounts"],
        "resourceNames": ["stencil-reader"],
        "verbs": ["impersonate"],
    }
    written = {resource for r in rules if "create" in r["verbs"] for resource in r["resources"]}
    assert written == {"events", "services", "kindrollouts"}  # the engine's own KindRollouts beside


def test_a_kind_naming_its_reader_is_granted_that_name_and_the_chart_told_of_the_default() -> None:
    rules = rbac.derive_rules([_kind("shop-reader")], resources)
    (impersonate,) = [r for r in rules if "impersonate" in r["verbs"]]
    assert impersonate["resourceNames"] == ["shop-reader"]
    (named,) = rbac.rules_by_kind([_kind("shop-reader")], resources)["kinds"]
    (unnamed,) = rbac.rules_by_kind([_kind()], resources)["kinds"]
    assert (named["reads"], unnamed["reads"]) == (False, True)
    assert not any("impersonate" in r["verbs"] for r in unnamed["rules"]), "the chart names the default"


def test_the_reader_role_reads_exactly_the_referenced_kinds() -> None:
    documents = rbac.documents([_kind()], resources)
    (reader,) = [d for d in documents if d["metadata"]["name"] == "stencil-reader"]
    assert reader["kind"] == "ClusterRole"
    assert reader["rules"] == [
        {"apiGroups": [""], "resources": ["configmaps", "secrets"], "verbs": ["get", "list", "watch"]}
    ]
    without = dataclasses.replace(_kind(), references=())
    assert not [d for d in rbac.documents([without], resources) if d["metadata"]["name"] == "stencil-reader"]
