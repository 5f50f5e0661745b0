"""Property, on the real API server: a child of any of the shapes the server normalizes (a Secret's
``stringData``, empty and null values, defaulted Service ports, quantities written any way a user
writes them, Pods and StatefulSets whose volumes admission adds to), once applied, is converged at
once: the plan of the cached object applies nothing and restores nothing.  A second field manager
that forces a rendered field is told apart, by name."""

from __future__ import annotations

import itertools
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.core.decisions.plans import contention, ownership, planning
from engine.runtime.cluster.kube import Kube

KEYS = st.text("abcdefgh", min_size=1, max_size=6)
TEXT = st.text("abc xyz-019", max_size=12)
CPU = st.sampled_from(["0.5", "500m", 0.5, 1, "1", "1000m", "250m", "0.25", "2", 2.0])
MEMORY = st.sampled_from(["1Gi", "1024Mi", "512Mi", "0.5Gi", "1G", "1000M", "134217728", 134217728])


def named(kind: str, api_version: str = "v1", **body: Any) -> dict[str, Any]:
    return {"apiVersion": api_version, "kind": kind, "metadata": {"name": "x"}, **body}


secrets = st.builds(
    lambda string, data: named("Secret", stringData=string, **({"data": data} if data is not None else {})),
    st.dictionaries(KEYS, TEXT, max_size=3),
    st.none() | st.dictionaries(KEYS.map(lambda k: k + "-raw"), st.just("YWJj"), max_size=2),
)
configmaps = st.builds(
    lambda data: named("ConfigMap", data=data), st.none() | st.dictionaries(KEYS, TEXT, max_size=3)
)


@st.composite
def services(draw: st.DrawFn) -> dict[str, Any]:
    numbers = draw(st.lists(st.integers(1, 65535), min_size=1, max_size=3, unique=True))
    ports = []
    for index, number in enumerate(numbers):
        port: dict[str, Any] = {"port": number}
        if len(numbers) > 1:
            port["name"] = f"p{index}"
        if draw(st.booleans()):
            port["protocol"] = "TCP"
        if draw(st.booleans()):
            port["targetPort"] = draw(st.integers(1, 65535) | st.just("http"))
        ports.append(port)
    selector = draw(st.none() | st.dictionaries(KEYS, KEYS, max_size=2))
    return named("Service", spec={"ports": ports, **({"selector": selector} if selector is not None else {})})


@st.composite
def deployments(draw: st.DrawFn) -> dict[str, Any]:
    resources = {
        part: {"cpu": draw(CPU), "memory": draw(MEMORY)}
        for part in draw(st.sampled_from([(), ("requests",), ("requests", "limits")]))
    }
    if "limits" in resources:  # a limit below its request is invalid: the limit is the request, as written
        resources["limits"] = dict(resources["requests"])
    container = {
        "name": "web",
        "image": "nginx:1.27",
        "resources": resources,
        "ports": [{"containerPort": 80}],
    }
    strategy = draw(st.sampled_from([{}, {"rollingUpdate": {"maxUnavailable": "25%", "maxSurge": 1}}]))
    spec = {
        "selector": {"matchLabels": {"app": "x"}},
        "template": {
            "metadata": {"labels": {"app": "x"}},
            "spec": {"containers": [container], "volumes": []},
        },
        **({"strategy": strategy} if strategy else {}),
    }
    return named("Deployment", "apps/v1", spec=spec)


@st.composite
def policies(draw: st.DrawFn) -> dict[str, Any]:
    selector = draw(
        st.sampled_from([{"matchLabels": None}, {}, {"matchLabels": {"app": "x"}}, {"matchExpressions": []}])
    )
    ingress = draw(st.sampled_from([None, [], [{}], [{"from": [{"podSelector": {}}]}]]))
    spec: dict[str, Any] = {"podSelector": selector}
    if ingress is not None:
        spec["ingress"] = ingress
    return named("NetworkPolicy", "networking.k8s.io/v1", spec=spec)


@st.composite
def pod_specs(draw: st.DrawFn) -> dict[str, Any]:
    """Containers with volumes and mounts: admission adds the token volume and a mount to each."""
    volumes = draw(st.lists(KEYS, max_size=3, unique=True))
    mounted = draw(st.sets(st.sampled_from(volumes))) if volumes else set()
    mounts = [{"name": v, "mountPath": f"/mnt/{v}"} for v in sorted(mounted)]
    container = {"name": "web", "image": "nginx:1.27", "volumeMounts": mounts}
    return {"containers": [container], "volumes": [{"name": v, "emptyDir": {}} for v in volumes]}


pods = st.builds(lambda spec: named("Pod", spec=spec), pod_specs())


@st.composite
def statefulsets(draw: st.DrawFn) -> dict[str, Any]:
    spec = draw(pod_specs())
    claims = draw(st.lists(KEYS.map(lambda k: k + "-data"), max_size=2, unique=True))
    spec["containers"][0]["volumeMounts"] += [{"name": c, "mountPath": f"/data/{c}"} for c in claims]
    template = {
        "selector": {"matchLabels": {"app": "x"}},
        "serviceName": "x",
        "template": {"metadata": {"labels": {"app": "x"}}, "spec": spec},
        "volumeClaimTemplates": [
            {
                "metadata": {"name": c},
                "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
            }
            for c in claims
        ],
    }
    return named("StatefulSet", "apps/v1", spec=template)


SHAPES = secrets | configmaps | services() | deployments() | policies() | pods | statefulsets()
NAMES = itertools.count()


def cached(kube: Kube, obj: dict[str, Any]) -> dict[str, Any]:
    """The object as the engine's cache keeps it, read back from the server."""
    res = kube.resource(obj["apiVersion"], obj["kind"])
    live = kube.get(res, obj["metadata"]["name"], obj["metadata"]["namespace"])
    assert live is not None
    return ownership.kept(live)


def test_every_generated_child_is_converged_once_applied(kube: Kube, namespace: str) -> None:
    @settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(SHAPES)
    def applied_then_planned_again(shape: dict[str, Any]) -> None:
        desired = {**shape, "metadata": {"name": f"gen-{next(NAMES)}", "namespace": namespace}}
        target = planning.with_hash(desired)
        kube.apply(target)

        observed = cached(kube, target)

        assert planning.converged(observed, target), f"drift: {planning.restores(observed, target)}"
        assert planning.restores(observed, target) == []

    applied_then_planned_again()


def test_a_rival_manager_forcing_a_rendered_field_is_drift_and_is_named(kube: Kube, namespace: str) -> None:
    desired = {
        **named("ConfigMap", data={"k": "ours", "other": "kept"}),
        "metadata": {"name": "c", "namespace": namespace},
    }
    target = planning.with_hash(desired)
    kube.apply(target)
    rival = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "c", "namespace": namespace},
        "data": {"k": "theirs"},
    }
    res = kube.resource("v1", "ConfigMap")
    kube.request(
        "PATCH",
        res.path(namespace, "c"),
        rival,
        query={"fieldManager": "rival", "force": "true"},
        content_type="application/apply-patch+yaml",
    )

    observed = cached(kube, target)

    assert not planning.converged(observed, target)
    assert planning.restores(observed, target) == [("data", "k")]
    live = kube.get(res, "c", namespace)
    assert live is not None
    assert contention.other_managers(live, ("data", "k"), ownership.FIELD_MANAGER) == ["rival"]
