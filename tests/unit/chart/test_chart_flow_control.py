"""The chart's API Priority and Fairness objects, as `helm template` renders them: absent
unless asked for, and then a priority level of the engine's own and a FlowSchema that
selects exactly the ServiceAccount the engine's pods run as.

The precedences below are the API server's built-in FlowSchemas of Kubernetes 1.34
(k8s.io/apiserver pkg/apis/flowcontrol/bootstrap/default.go): the chart's schema has to
come before `service-accounts` and after every schema of the system's own clients.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from engine.localcluster import binaries

CHART = Path(__file__).resolve().parents[3] / "charts" / "stencil"
NAMESPACE = "stencil-system"
LAST_SYSTEM_SCHEMA = 900  # kube-system-service-accounts
SERVICE_ACCOUNTS_SCHEMA = 9000  # every other ServiceAccount, to workload-low
FLOW_CONTROL_KINDS = ("FlowSchema", "PriorityLevelConfiguration")


@pytest.fixture(scope="module")
def helm() -> Path:
    return binaries.ensure(["helm"])["helm"]


def template(helm: Path, *settings: str) -> subprocess.CompletedProcess[str]:
    args = [str(helm), "template", "rel", str(CHART), "--namespace", NAMESPACE]
    for setting in settings:
        args += ["--set", setting]
    return subprocess.run(args, capture_output=True, text=True, timeout=120)


def render(helm: Path, *settings: str) -> dict[str, list[dict[str, Any]]]:
    """The rendered objects by kind."""
    result = template(helm, *settings)
    assert result.returncode == 0, result.stderr
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for doc in yaml.load_all(result.stdout, Loader=yaml.CSafeLoader):
        if doc:
            by_kind.setdefault(doc["kind"], []).append(doc)
    return by_kind


def pods_service_account(objects: dict[str, list[dict[str, Any]]]) -> str:
    (deployment,) = objects["Deployment"]
    name: str = deployment["spec"]["template"]["spec"]["serviceAccountName"]
    return name


def test_flow_control_objects_are_not_rendered_by_default(helm: Path) -> None:
    objects = render(helm)

    assert not [kind for kind in FLOW_CONTROL_KINDS if kind in objects]


def test_flow_schema_sends_every_request_of_the_charts_service_account_to_its_own_level(
    helm: Path,
) -> None:
    objects = render(helm, "flowControl.enabled=true")
    (level,) = objects["PriorityLevelConfiguration"]
    (schema,) = objects["FlowSchema"]
    (account,) = objects["ServiceAccount"]

    assert level["apiVersion"] == schema["apiVersion"] == "flowcontrol.apiserver.k8s.io/v1"
    assert "namespace" not in level["metadata"] and "namespace" not in schema["metadata"]
    assert schema["spec"]["priorityLevelConfiguration"] == {"name": level["metadata"]["name"]}
    assert LAST_SYSTEM_SCHEMA < schema["spec"]["matchingPrecedence"] < SERVICE_ACCOUNTS_SCHEMA
    assert schema["spec"]["distinguisherMethod"] == {"type": "ByUser"}
    (rule,) = schema["spec"]["rules"]
    assert rule["subjects"] == [
        {
            "kind": "ServiceAccount",
            "serviceAccount": {"name": account["metadata"]["name"], "namespace": NAMESPACE},
        }
    ]
    assert account["metadata"]["name"] == pods_service_account(objects)
    assert rule["resourceRules"] == [
        {"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"], "clusterScope": True, "namespaces": ["*"]}
    ]
    assert rule["nonResourceRules"] == [{"nonResourceURLs": ["*"], "verbs": ["*"]}]

    limited = level["spec"]["limited"]
    assert level["spec"]["type"] == "Limited"
    assert limited["nominalConcurrencyShares"] > 0
    assert 0 <= limited["lendablePercent"] <= 100
    assert limited["limitResponse"]["type"] == "Queue"
    queuing = limited["limitResponse"]["queuing"]
    assert 0 < queuing["handSize"] <= queuing["queues"]
    assert queuing["queueLengthLimit"] > 0


@pytest.mark.parametrize(
    "settings",
    [
        ("serviceAccount.name=engine",),
        ("serviceAccount.create=false", "serviceAccount.name=shared"),
    ],
)
def test_flow_schema_follows_the_service_account_the_pods_run_as(
    helm: Path, settings: tuple[str, ...]
) -> None:
    objects = render(helm, "flowControl.enabled=true", *settings)
    (schema,) = objects["FlowSchema"]

    (subject,) = schema["spec"]["rules"][0]["subjects"]
    assert subject["serviceAccount"] == {"name": pods_service_account(objects), "namespace": NAMESPACE}


def test_share_lending_and_precedence_are_values(helm: Path) -> None:
    objects = render(
        helm,
        "flowControl.enabled=true",
        "flowControl.nominalConcurrencyShares=7",
        "flowControl.lendablePercent=0",
        "flowControl.matchingPrecedence=1200",
    )
    (level,) = objects["PriorityLevelConfiguration"]
    (schema,) = objects["FlowSchema"]

    assert level["spec"]["limited"]["nominalConcurrencyShares"] == 7
    assert level["spec"]["limited"]["lendablePercent"] == 0
    assert schema["spec"]["matchingPrecedence"] == 1200


@pytest.mark.parametrize(
    "setting",
    [
        f"flowControl.matchingPrecedence={SERVICE_ACCOUNTS_SCHEMA}",
        "flowControl.matchingPrecedence=0",
        "flowControl.lendablePercent=101",
        "flowControl.nominalConcurrencyShares=0",
    ],
)
def test_values_schema_refuses_settings_that_would_not_give_the_engine_a_share(
    helm: Path, setting: str
) -> None:
    result = template(helm, "flowControl.enabled=true", setting)

    assert result.returncode != 0
    assert "values don't meet the specifications of the schema" in result.stderr
