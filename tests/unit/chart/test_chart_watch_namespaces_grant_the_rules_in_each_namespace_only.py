"""A namespace-scoped install: with watchNamespaces (and watchNamespace, one more name) the
engine watches those namespaces only and holds its rules there only, a Role and RoleBinding
in each and no ClusterRole of them."""

from __future__ import annotations

from engine.core.model import kinds
from engine.core.offline import rbac
from engine.core.offline.admission import OfflineCrds
from tests.unit._chart import CHART, FULLNAME, NAMESPACE, flags, grants, of_kind, pod, render, template

ROOT = CHART.parents[1]
AGGREGATED = "rbac.authorization.k8s.io/aggregate-to-"


def derived_rules() -> list[dict[str, object]]:
    loaded, _ = kinds.load_kinds(ROOT / "templates")
    rules: list[dict[str, object]] = rbac.derive_rules(
        loaded.values(),
        rbac.offline_resources(ROOT / "crds", loaded.values()),
        OfflineCrds.read(ROOT / "crds", loaded.values()).defaulted,
    )
    return rules


def test_each_watched_namespace_gets_the_rules_and_nothing_is_cluster_wide() -> None:
    documents = render("watchNamespaces={team-a,team-b}", "watchNamespace=team-a")
    roles, bindings = of_kind(documents, "Role"), of_kind(documents, "RoleBinding")

    assert flags(pod(documents)["containers"][0]["args"], "--namespace") == ["team-a", "team-b"]
    for namespace in ("team-a", "team-b"):
        assert grants(roles[f"{namespace}/{FULLNAME}"]["rules"]) == grants(derived_rules())
        binding = bindings[f"{namespace}/{FULLNAME}"]
        assert (binding["roleRef"]["kind"], binding["roleRef"]["name"]) == ("Role", FULLNAME)
        assert binding["subjects"][0]["namespace"] == NAMESPACE
    assert {key.split("/")[0] for key in roles} == {"team-a", "team-b", NAMESPACE}
    assert FULLNAME not in of_kind(documents, "ClusterRole")
    assert FULLNAME not in of_kind(documents, "ClusterRoleBinding")
    # The kinds' user roles (rbac.userRoles) only add to the built-in admin, edit and view roles;
    # the role of kinds dropped in later holds no rules of the chart's, and is bound in those
    # namespaces alone (test_chart_aggregates_the_roles_stencil_bundle_writes_for_its_own_release_alone).
    cluster_wide = [
        r
        for role in of_kind(documents, "ClusterRole").values()
        if not any(label.startswith(AGGREGATED) for label in role["metadata"]["labels"])
        for r in role.get("rules") or []
    ]
    assert all(set(r.get("resources", [])) <= {"tokenreviews", "subjectaccessreviews"} for r in cluster_wide)


def test_a_name_that_is_no_namespace_is_refused() -> None:
    result = template("watchNamespaces={Team_A}")

    assert result.returncode != 0
    assert "watchNamespaces" in result.stderr
