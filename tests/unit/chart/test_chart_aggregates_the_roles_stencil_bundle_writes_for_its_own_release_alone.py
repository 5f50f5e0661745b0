"""The chart's roles for kinds dropped in later, ``<fullname>-bundled`` and
``<fullname>-bundled-leases``, aggregate the ClusterRoles ``stencil bundle`` writes for their release
and namespace, each into its own (the kind's rules into the engine's, its Lease into the one bound
where the kinds' Leases are), those written for another release, or for a release of the same name
in another namespace, into neither, and none of the chart's own: an aggregated role whose sources
``helm uninstall`` deletes with it can be re-created by kube-controller-manager as it goes."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from engine.tools import cli
from tests.unit._chart import CHART, FULLNAME, NAMESPACE, RELEASE, aggregated, of_kind, render

KIND_DIR = CHART.parents[1] / "templates" / "network"
ENGINE, LEASES = f"{FULLNAME}-bundled", f"{FULLNAME}-bundled-leases"


def bundled_roles(release: str, namespace: str) -> list[dict[str, Any]]:
    args = ["bundle", str(KIND_DIR), "--release", release, "--namespace", namespace]
    result = CliRunner().invoke(cli.main, args)
    assert result.exit_code == 0, result.output
    return [d for d in yaml.safe_load_all(result.output) if d and d["kind"] == "ClusterRole"]


def test_the_bundles_roles_join_their_own_releases_roles_each_into_its_own() -> None:
    chart = render()
    engine_role, lease_role = bundled_roles(RELEASE, NAMESPACE)

    assert aggregated(chart, ENGINE) == aggregated(chart, LEASES) == []  # none of the chart's own
    with_bundle = [*chart, engine_role, lease_role]
    assert aggregated(with_bundle, ENGINE) == engine_role["rules"]
    assert aggregated(with_bundle, LEASES) == lease_role["rules"]


def test_the_bundles_roles_for_another_release_join_neither() -> None:
    chart = render()
    for release, namespace in (("other", NAMESPACE), (RELEASE, "elsewhere")):
        theirs = bundled_roles(release, namespace)
        assert aggregated([*chart, *theirs], ENGINE) == aggregated([*chart, *theirs], LEASES) == []


@pytest.mark.parametrize(
    ("settings", "engine_bindings", "lease_namespace"),
    [
        ((), {ENGINE: "ClusterRoleBinding"}, "kube-system"),
        (
            ("watchNamespaces={team-a,team-b}",),
            {f"team-a/{ENGINE}": "RoleBinding", f"team-b/{ENGINE}": "RoleBinding"},
            "team-a",
        ),
    ],
    ids=["every-namespace", "watching-some"],
)
def test_they_are_bound_where_the_charts_own_rules_are(
    settings: tuple[str, ...], engine_bindings: dict[str, str], lease_namespace: str
) -> None:
    chart = render(*settings)
    bindings = {**of_kind(chart, "ClusterRoleBinding"), **of_kind(chart, "RoleBinding")}
    bundled = {key: b for key, b in bindings.items() if b["roleRef"]["name"] in (ENGINE, LEASES)}

    assert {key: b["kind"] for key, b in bundled.items()} == {
        **engine_bindings,
        f"{lease_namespace}/{LEASES}": "RoleBinding",
    }
    for binding in bundled.values():
        assert binding["roleRef"]["kind"] == "ClusterRole"
        assert binding["subjects"] == [{"kind": "ServiceAccount", "name": FULLNAME, "namespace": NAMESPACE}]
