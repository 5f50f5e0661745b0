"""networkPolicy.enabled=true puts the engine's pods behind a NetworkPolicy whose one ingress
rule is the metrics port, from the peers networkPolicy.metricsFrom names; off by default."""

from __future__ import annotations

from tests.unit._chart import of_kind, pod, render


def test_no_policy_unless_asked() -> None:
    assert of_kind(render(), "NetworkPolicy") == {}


def test_the_policy_selects_the_engine_and_admits_only_scrapes_from_the_given_peers() -> None:
    documents = render(
        "networkPolicy.enabled=true",
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
