"""``stencil rbac`` grants the engine the Leases that hold its kinds, each by the name the engine
campaigns for, in the kinds' Lease namespace, and no other Lease there but by ``create``."""

from pathlib import Path

import yaml
from click.testing import CliRunner

from engine.core.decisions.coordination import holding
from engine.core.model import kinds
from engine.tools.cli import main

ROOT = Path(__file__).resolve().parents[5]


def test_the_kinds_role_names_each_kinds_lease_in_the_namespace_asked() -> None:
    result = CliRunner().invoke(
        main,
        ["rbac", "--templates", str(ROOT / "templates"), "--crds", str(ROOT / "crds"),
         "--kind-lease-namespace", "coordination"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    documents = list(yaml.load_all(result.output, Loader=yaml.CSafeLoader))
    (role,) = (d for d in documents if d["kind"] == "Role" and d["metadata"]["name"] == "stencil-kinds")

    loaded, _ = kinds.load_kinds(ROOT / "templates")
    assert role["metadata"]["namespace"] == "coordination"
    named = [r for r in role["rules"] if "resourceNames" in r]
    assert named == [
        {
            "apiGroups": ["coordination.k8s.io"],
            "resources": ["leases"],
            "resourceNames": sorted(holding.lease_name(k.api_version, k.kind) for k in loaded.values()),
            "verbs": ["get", "update"],
        }
    ]
    unnamed = [r for r in role["rules"] if "resourceNames" not in r]
    assert [r["verbs"] for r in unnamed] == [["create"]]
