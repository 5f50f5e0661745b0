"""The Helm chart as Helm itself sees it: lint, schema, and the manifests `helm template` renders.

Needs only the helm binary (found, or built once, by engine.localcluster.binaries);
no cluster.  Expected RBAC rules are computed with engine.core.offline.rbac from templates/
and crds/, never written out here, so the chart is held to what `stencil rbac`
derives from the kinds it actually ships.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from engine.core.model import kinds
from engine.core.offline import rbac
from engine.core.offline.admission import OfflineCrds
from engine.localcluster import binaries
from tests.unit._chart import grants

ROOT = Path(__file__).resolve().parents[3]
CHART = ROOT / "charts" / "stencil"
NAMESPACE = "stencil-system"
FULLNAME = "rel-stencil"  # the objects' name for the release "rel" these tests render


@pytest.fixture(scope="module")
def helm() -> Path:
    return binaries.ensure(["helm"])["helm"]


def run_helm(helm: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(helm), *args], capture_output=True, text=True, timeout=120)


def render(helm: Path, *settings: str) -> list[dict[str, Any]]:
    args = ["template", "rel", str(CHART), "--namespace", NAMESPACE]
    for setting in settings:
        args += ["--set", setting]
    result = run_helm(helm, *args)
    assert result.returncode == 0, result.stderr
    return [d for d in yaml.load_all(result.stdout, Loader=yaml.CSafeLoader) if d]


def one(documents: list[dict[str, Any]], kind: str, name: str | None = None) -> dict[str, Any]:
    found = [d for d in documents if d["kind"] == kind and (name is None or d["metadata"]["name"] == name)]
    assert len(found) == 1, f"{len(found)} {kind} {name or ''}"
    return found[0]


def container(documents: list[dict[str, Any]]) -> dict[str, Any]:
    spec = one(documents, "Deployment")["spec"]["template"]["spec"]
    assert len(spec["containers"]) == 1
    engine: dict[str, Any] = spec["containers"][0]
    return engine


def flag(args: list[str], name: str) -> str | None:
    for arg in args:
        if arg == name:
            return ""
        if arg.startswith(name + "="):
            return arg.split("=", 1)[1]
    return None


def shipped_kinds() -> dict[str, kinds.Kind]:
    loaded, broken = kinds.load_kinds(ROOT / "templates")
    assert not broken
    return loaded


def test_chart_passes_helm_lint_strict(helm: Path) -> None:
    result = run_helm(helm, "lint", "--strict", str(CHART))

    assert result.returncode == 0, result.stdout + result.stderr


def test_values_schema_refuses_unknown_keys_and_bad_values(helm: Path) -> None:
    for setting in ("replicaCount=-1", "bogus=1", "logFormat=xml", "rbac.extraRules[0].verbs[0]=*"):
        result = run_helm(helm, "template", "rel", str(CHART), "--set", setting)
        assert result.returncode != 0, setting
        assert "values don't meet the specifications of the schema" in result.stderr, setting


def test_engine_pod_is_locked_down(helm: Path) -> None:
    documents = render(helm)
    pod = one(documents, "Deployment")["spec"]["template"]["spec"]
    engine = container(documents)

    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["runAsUser"] != 0
    assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
    security = engine["securityContext"]
    assert security["readOnlyRootFilesystem"] is True
    assert security["allowPrivilegeEscalation"] is False
    assert security["capabilities"] == {"drop": ["ALL"]}
    assert security["seccompProfile"] == {"type": "RuntimeDefault"}
    assert set(engine["resources"]["requests"]) == {"cpu", "memory"}


def test_probes_hit_healthz_and_readyz_on_a_port_apart_from_the_metrics(helm: Path) -> None:
    documents = render(helm, "metrics.port=9090", "healthProbe.port=9091")
    engine = container(documents)

    assert engine["ports"] == [
        {"name": "metrics", "containerPort": 9090, "protocol": "TCP"},
        {"name": "health", "containerPort": 9091, "protocol": "TCP"},
    ]
    assert engine["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "health"}
    assert engine["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "health"}
    assert flag(engine["args"], "--metrics-bind-address") == ":9090"
    assert flag(engine["args"], "--health-probe-bind-address") == ":9091"
    service = one(documents, "Service")
    assert service["spec"]["ports"][0]["targetPort"] == "metrics"
    assert service["spec"]["selector"] == one(documents, "Deployment")["spec"]["selector"]["matchLabels"]


def test_one_replica_runs_without_election_or_disruption_budget(helm: Path) -> None:
    documents = render(helm)

    assert flag(container(documents)["args"], "--leader-elect") is None
    assert not [d for d in documents if d["kind"] == "PodDisruptionBudget"]


def test_two_replicas_elect_a_leader_and_get_a_disruption_budget(helm: Path) -> None:
    documents = render(helm, "replicaCount=2", "leaderElection.leaseDuration=20")
    args = container(documents)["args"]

    assert flag(args, "--leader-elect") == ""
    assert flag(args, "--leader-elect-namespace") == "$(POD_NAMESPACE)"
    assert flag(args, "--leader-elect-lease-duration") == "20"
    pdb = one(documents, "PodDisruptionBudget")
    assert pdb["spec"]["maxUnavailable"] == 1
    assert "minAvailable" not in pdb["spec"]
    assert pdb["spec"]["selector"] == one(documents, "Deployment")["spec"]["selector"]


def test_cluster_role_grants_exactly_what_stencil_rbac_derives(helm: Path) -> None:
    documents = render(helm)
    expected = rbac.derive_rules(
        shipped_kinds().values(),
        rbac.offline_resources(ROOT / "crds", shipped_kinds().values()),
        OfflineCrds.read(ROOT / "crds", shipped_kinds().values()).defaulted,
    )

    role = one(documents, "ClusterRole", FULLNAME)
    binding = one(documents, "ClusterRoleBinding", FULLNAME)
    account = one(documents, "ServiceAccount")

    assert grants(role["rules"]) == grants(expected)
    assert all("*" not in values for rule in role["rules"] for values in rule.values())
    assert binding["roleRef"] == {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                                  "name": role["metadata"]["name"]}  # fmt: skip
    assert binding["subjects"] == [
        {"kind": "ServiceAccount", "name": account["metadata"]["name"], "namespace": NAMESPACE}
    ]
    assert (
        one(documents, "Deployment")["spec"]["template"]["spec"]["serviceAccountName"]
        == account["metadata"]["name"]
    )


def test_lease_and_kind_configmaps_are_granted_in_the_release_namespace_only(helm: Path) -> None:
    documents = render(helm, "replicaCount=2")
    lease_name = flag(container(documents)["args"], "--leader-elect-lease-name")
    assert lease_name

    role = next(d for d in documents if d["kind"] == "Role")

    assert role["metadata"]["namespace"] == NAMESPACE
    assert role["rules"] == rbac.namespace_rules(lease_name)
    binding = one(documents, "RoleBinding", role["metadata"]["name"])
    assert binding["roleRef"]["name"] == role["metadata"]["name"]


def test_watch_namespace_grants_the_rules_in_that_namespace_only(helm: Path) -> None:
    documents = render(helm, "watchNamespace=apps")

    # The engine's rules are nowhere cluster-wide (the metrics' own ClusterRoles are not theirs).
    assert not [d for d in documents if d["kind"] in ("ClusterRole", "ClusterRoleBinding")
                and d["metadata"]["name"] == FULLNAME]  # fmt: skip
    roles = {d["metadata"]["namespace"]: d for d in documents if d["kind"] == "Role"
             and d["metadata"]["name"] == FULLNAME}  # fmt: skip
    expected = rbac.derive_rules(
        shipped_kinds().values(),
        rbac.offline_resources(ROOT / "crds", shipped_kinds().values()),
        OfflineCrds.read(ROOT / "crds", shipped_kinds().values()).defaulted,
    )
    assert grants(roles["apps"]["rules"]) == grants(expected)
    assert flag(container(documents)["args"], "--namespace") == "apps"


def test_extra_rules_are_appended_for_drop_in_kinds(helm: Path) -> None:
    documents = render(helm, "rbac.extraRules[0].apiGroups[0]=batch", "rbac.extraRules[0].resources[0]=jobs",
                       "rbac.extraRules[0].verbs[0]=get")  # fmt: skip

    assert one(documents, "ClusterRole", FULLNAME)["rules"][-1] == {
        "apiGroups": ["batch"],
        "resources": ["jobs"],
        "verbs": ["get"],
    }


def test_each_shipped_kind_is_a_labelled_configmap_of_its_files(helm: Path) -> None:
    documents = render(helm)
    configmaps = {
        d["metadata"]["annotations"]["stencil.dev/kind-name"]: d
        for d in documents
        if d["kind"] == "ConfigMap"
        and d["metadata"].get("labels", {}).get("stencil.dev/kind-bundle") == "true"
    }

    shipped = shipped_kinds()
    assert shipped, "the chart should ship at least one kind"
    assert set(configmaps) == set(shipped)
    for name, kind in shipped.items():
        files = {p.name: p.read_text() for p in kind.directory.iterdir() if p.is_file()}
        assert configmaps[name]["data"] == files
        assert configmaps[name]["metadata"]["namespace"] == NAMESPACE


def test_kinds_can_be_limited_or_left_out(helm: Path) -> None:
    none = render(helm, "kinds.install=false")
    only_missing = render(helm, "kinds.only[0]=no-such-kind")

    for documents in (none, only_missing):
        assert not [d for d in documents if d["kind"] == "ConfigMap"]


def test_service_monitor_is_optional(helm: Path) -> None:
    without = render(helm)
    with_monitor = render(helm, "metrics.serviceMonitor.enabled=true")

    assert not [d for d in without if d["kind"] == "ServiceMonitor"]
    monitor = one(with_monitor, "ServiceMonitor")
    assert monitor["spec"]["endpoints"][0]["port"] == "metrics"
    selector = monitor["spec"]["selector"]["matchLabels"]
    assert selector.items() <= one(with_monitor, "Service")["metadata"]["labels"].items()
