"""The engine's pods are behind a NetworkPolicy by default, whose one ingress rule is the metrics
port, from the peers networkPolicy.metricsFrom names; with none named, nothing reaches them."""

from __future__ import annotations

from tests.unit._chart import of_kind, pod, render


def test_the_default_policy_admits_nothing_and_can_be_turned_off() -> None:
    (policy,) = of_kind(render(), "NetworkPolicy").values()
    assert policy["spec"]["policyTypes"] == ["Ingress"]
    assert policy["spec"]["ingress"] == []
    assert of_kind(render("networkPolicy.enabled=false"), "NetworkPolicy") == {}


def test_health_probers_are_admitted_only_on_the_probe_port() -> None:
    documents = render("networkPolicy.healthProbeFrom[0].ipBlock.cidr=10.0.0.0/24")
    (policy,) = of_kind(documents, "NetworkPolicy").values()
    (rule,) = policy["spec"]["ingress"]
    assert rule == {
        "ports": [{"port": "health", "protocol": "TCP"}],
        "from": [{"ipBlock": {"cidr": "10.0.0.0/24"}}],
    }


def test_the_policy_selects_the_engine_and_admits_only_scrapes_from_the_given_peers() -> None:
    documents = render(
        "networkPolicy.metricsFrom[0].namespaceSelector.matchLabels.kubernetes\\.io/metadata\\.name=monitoring",
    )
    (policy,) = of_kind(documents, "NetworkPolicy").values()
    (deployment,) = of_kind(documents, "Deployment").values()

    assert policy["spec"]["podSelector"] == deployment["spec"]["selector"]
    assert policy["spec"]["policyTypes"] == ["Ingress"]
    (rule,) = policy["spec"]["ingress"]
    assert rule["ports"] == [{"port": "metrics", "protocol": "TCP"}]
    assert "metrics" in {p["name"] for p in pod(documents)["containers"][0]["ports"]}
    monitoring = {"matchLabels": {"kubernetes.io/metadata.name": "monitoring"}}
    assert rule["from"] == [{"namespaceSelector": monitoring}]
