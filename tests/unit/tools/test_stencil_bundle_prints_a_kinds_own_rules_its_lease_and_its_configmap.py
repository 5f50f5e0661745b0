"""`stencil bundle KIND_DIR` prints what drops a kind into a running release: a ClusterRole of the
rules `stencil rbac` derives for the kind alone (the chart's files/rules.yaml entry for it, which
sync-chart writes with the same derivation), a ClusterRole of its Lease, both labelled for the
release given and its namespace, and then the ConfigMap the chart itself would make of the folder."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from engine.core.model import kinds
from engine.core.offline import rbac
from engine.tools import cli
from tests.unit._chart import CHART, grants

ROOT = CHART.parents[1]
SHIPPED = sorted(p.name for p in (ROOT / "templates").iterdir() if (p / kinds.KIND_FILE).is_file())


def bundle(*args: str) -> list[dict[str, Any]]:
    result = CliRunner().invoke(cli.main, ["bundle", *args])
    assert result.exit_code == 0, result.output
    return [d for d in yaml.safe_load_all(result.output) if d]


def chart_entry(kind_name: str) -> dict[str, Any]:
    rules = yaml.safe_load((CHART / "files" / "rules.yaml").read_text())
    (entry,) = (e for e in rules["kinds"] if e["kind"] == kind_name)
    return dict(entry)


@pytest.mark.parametrize("kind_name", SHIPPED)
def test_the_bundle_of_a_shipped_kind_is_what_the_chart_grants_and_ships_for_it(kind_name: str) -> None:
    engine_role, lease_role, configmap = bundle(
        str(ROOT / "templates" / kind_name), "--crds", str(ROOT / "crds")
    )
    kind = kinds.load_kind(ROOT / "templates" / kind_name)

    assert (engine_role["kind"], lease_role["kind"], configmap["kind"]) == (
        "ClusterRole",
        "ClusterRole",
        "ConfigMap",
    )
    assert engine_role["rules"] == chart_entry(kind_name)["rules"]
    assert lease_role["rules"] == rbac.kind_lease_rules([kind])
    shipped = {p.name: p.read_text() for p in sorted((CHART / "kinds" / kind_name).iterdir())}
    assert configmap["data"] == shipped
    assert configmap["metadata"]["namespace"] == "stencil-system"
    assert configmap["metadata"]["labels"] == {"stencil.dev/kind-bundle": "true"}
    assert configmap["metadata"]["annotations"] == {"stencil.dev/kind-name": kind_name}


def test_the_roles_are_labelled_for_the_release_and_namespace_given_and_named_apart() -> None:
    kind_dir = str(ROOT / "templates" / "network")
    ours = bundle(kind_dir, "--release", "prod", "--namespace", "platform")
    theirs = bundle(kind_dir, "--release", "prod", "--namespace", "other")

    assert ours[0]["metadata"]["labels"] == {
        "stencil.dev/aggregate-to-engine": "prod",
        "stencil.dev/release-namespace": "platform",
    }
    assert ours[1]["metadata"]["labels"] == {
        "stencil.dev/aggregate-to-kind-leases": "prod",
        "stencil.dev/release-namespace": "platform",
    }
    assert ours[2]["metadata"]["namespace"] == "platform"
    # Cluster-scoped: a release of the same name elsewhere gets ClusterRoles of its own.
    assert {d["metadata"]["name"] for d in ours[:2]}.isdisjoint(d["metadata"]["name"] for d in theirs[:2])


def test_shards_add_the_patch_the_chart_adds_with_sharding() -> None:
    (engine_role, *_) = bundle(str(ROOT / "templates" / "network"), "--shards")
    entry = chart_entry("network")

    assert grants(engine_role["rules"]) == grants([*entry["rules"], *entry["shards"]])


def test_a_folder_a_configmap_cannot_carry_is_refused(tmp_path: Path) -> None:
    kind_dir = tmp_path / "network"
    shutil.copytree(ROOT / "templates" / "network", kind_dir)
    (kind_dir / "partials").mkdir()
    (kind_dir / "partials" / "x.yaml").write_text("a: 1\n")

    result = CliRunner().invoke(cli.main, ["bundle", str(kind_dir)])

    assert result.exit_code != 0
    assert "a kind ConfigMap is flat" in result.output
