"""By default the chart's engine serves /metrics over HTTPS to callers the API server allows:
the engine may create TokenReviews and SubjectAccessReviews (and nothing more for it), a
metrics-reader ClusterRole holds the right to scrape, and a ServiceMonitor scrapes with a
token over TLS.  metrics.secure=false is plain HTTP and grants none of it."""

from __future__ import annotations

from tests.unit._chart import FULLNAME, NAMESPACE, flags, of_kind, pod, render

REVIEWS = [
    {"apiGroups": ["authentication.k8s.io"], "resources": ["tokenreviews"], "verbs": ["create"]},
    {"apiGroups": ["authorization.k8s.io"], "resources": ["subjectaccessreviews"], "verbs": ["create"]},
]


def test_secure_by_default_with_the_review_rights_bound_to_the_engine() -> None:
    documents = render("metrics.serviceMonitor.enabled=true")
    engine = pod(documents)["containers"][0]
    roles, bindings = of_kind(documents, "ClusterRole"), of_kind(documents, "ClusterRoleBinding")

    assert flags(engine["args"], "--metrics-secure") == [""]
    assert flags(engine["args"], "--no-metrics-secure") == []
    assert roles[f"{FULLNAME}-metrics-auth"]["rules"] == REVIEWS
    binding = bindings[f"{FULLNAME}-metrics-auth"]
    assert binding["roleRef"]["name"] == f"{FULLNAME}-metrics-auth"
    assert binding["subjects"] == [
        {"kind": "ServiceAccount", "name": pod(documents)["serviceAccountName"], "namespace": NAMESPACE}
    ]
    reader = roles[f"{FULLNAME}-metrics-reader"]
    assert reader["rules"] == [{"nonResourceURLs": ["/metrics"], "verbs": ["get"]}]
    assert not [b for b in bindings.values() if b["roleRef"]["name"] == f"{FULLNAME}-metrics-reader"]
    (monitor,) = of_kind(documents, "ServiceMonitor").values()
    (endpoint,) = monitor["spec"]["endpoints"]
    assert endpoint["scheme"] == "https"
    assert endpoint["bearerTokenFile"] == "/var/run/secrets/kubernetes.io/serviceaccount/token"


def test_a_certificate_secret_is_mounted_where_the_engine_reads_it() -> None:
    spec = pod(render("metrics.certSecret=stencil-metrics-tls"))
    engine = spec["containers"][0]

    (path,) = flags(engine["args"], "--metrics-cert-path")
    (volume,) = (v for v in spec["volumes"] if v.get("secret", {}).get("secretName") == "stencil-metrics-tls")
    (mount,) = (m for m in engine["volumeMounts"] if m["name"] == volume["name"])
    assert mount["mountPath"] == path and mount["readOnly"] is True


def test_plain_metrics_grant_no_reviews() -> None:
    documents = render("metrics.secure=false", "metrics.serviceMonitor.enabled=true")
    engine = pod(documents)["containers"][0]

    assert flags(engine["args"], "--no-metrics-secure") == [""]
    assert flags(engine["args"], "--metrics-secure") == []
    assert not [name for name in of_kind(documents, "ClusterRole") if "metrics" in name]
    (monitor,) = of_kind(documents, "ServiceMonitor").values()
    assert "scheme" not in monitor["spec"]["endpoints"][0]
