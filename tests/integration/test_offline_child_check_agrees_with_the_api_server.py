"""The offline child check refuses what the API server refuses and accepts what it accepts.

Each child is sent to a real kube-apiserver as a server-side apply dry run (so
nothing is stored) and checked by ``childschemas.check``; the two verdicts must
agree.  This is what makes the offline check worth trusting: the unit tests
show what it says, this file shows that the server says the same.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from engine.core.model import errors
from engine.core.offline import childschemas
from engine.runtime.cluster.kube import Kube
from tests.unit._schema_children import (
    configmap,
    container,
    cronjob,
    deployment,
    job,
    labels,
    metadata,
    namespace_object,
    service,
    statefulset,
)

Child = dict[str, Any]


def changed(child: Child, change: Callable[[Child], None]) -> Child:
    copied = copy.deepcopy(child)
    change(copied)
    return copied


def indexed_job(name: str, completions: int) -> Child:
    return job(name, completionMode="Indexed", completions=completions)


def statefulset_pod(statefulset_name: str, ordinal: int) -> Child:
    """A pod as the StatefulSet controller makes it: named and hostnamed <set>-<ordinal>, and labelled so."""
    name = f"{statefulset_name}-{ordinal}"
    labels = {"app": "db", "statefulset.kubernetes.io/pod-name": name}
    spec = {"hostname": name, "subdomain": "db", "containers": [container()]}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": labels}, "spec": spec}


def secret(value: str) -> Child:
    return {"apiVersion": "v1", "kind": "Secret", "metadata": metadata("shop-secret"), "data": {"key": value}}


def role(name: str) -> Child:
    rules = [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get"]}]
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "Role",
        "metadata": metadata(name),
        "rules": rules,
    }


def set_labels(child: Child, **extra: str) -> Child:
    return changed(child, lambda c: c["metadata"].__setitem__("labels", labels(**extra)))


def set_name(child: Child, name: str) -> Child:
    return changed(child, lambda c: c["metadata"].__setitem__("name", name))


def spec_set(child: Child, *path_and_value: Any) -> Child:
    *path, key, value = path_and_value

    def change(c: Child) -> None:
        target = c
        for part in path:
            target = target[part]
        target[key] = value

    return changed(child, change)


POD = ("spec", "template", "spec")
CASES = {
    "a plain deployment": deployment(),
    "volumes under a container": deployment(containers=[container(volumes=[{"name": "v", "emptyDir": {}}])]),
    "a quoted replica count": spec_set(deployment(), "spec", "replicas", "3"),
    "a malformed quantity": deployment(containers=[container(resources={"limits": {"memory": "12 Gi"}})]),
    "quantities as numbers": deployment(containers=[container(resources={"limits": {"cpu": 0.5}})]),
    "a named target port": service(),
    "a port past int32": deployment(containers=[container(ports=[{"containerPort": 2**31}])]),
    "a protocol outside the enum": deployment(
        containers=[container(ports=[{"containerPort": 80, "protocol": "X"}])]
    ),
    "a container without a name": deployment(containers=[{"image": "nginx"}]),
    "null for unset fields": deployment(containers=[container(command=None, ports=None)]),
    "two containers of one name": deployment(containers=[container(), container(image="busybox")]),
    "a service named with a digit first": set_name(service(), "1shop"),
    "a service named with a dot": set_name(service(), "shop.web"),
    "a configmap named with dots": set_name(configmap(), "shop.config"),
    # Each name rule (childschemas.NAME_RULES) just inside and just outside its limit.
    "a configmap name of 253": set_name(configmap(), "c" * 253),
    "a configmap name of 254": set_name(configmap(), "c" * 254),
    "a secret name of 253": set_name(secret("aGk="), "s" * 253),
    "a secret name of 254": set_name(secret("aGk="), "s" * 254),
    "a service name of 63": set_name(service(), "s" * 63),
    "a service name of 64": set_name(service(), "s" * 64),
    "a namespace name of 63": namespace_object("n" * 63),
    "a namespace name of 64": namespace_object("n" * 64),
    "a namespace named with a dot": namespace_object("team.a"),
    "a statefulset name of 63": statefulset("d" * 63),
    "a statefulset name of 64": statefulset("d" * 64),
    "a statefulset named with a dot": statefulset("db.main"),
    "a statefulset's pod named with 63": statefulset_pod("d" * 61, 9),
    "a statefulset's pod named with 64": statefulset_pod("d" * 61, 10),
    "a job name of 63": job("j" * 63),
    "a job name of 64": job("j" * 64),
    "a job named with a dot": job("shop.migrate"),
    "an indexed job whose last pod is named with 63": indexed_job("j" * 61, 10),
    "an indexed job whose last pod is named with 64": indexed_job("j" * 61, 11),
    "an indexed job named with a dot": indexed_job("shop.migrate", 1),
    "a cronjob name of 52": cronjob("c" * 52),
    "a cronjob name of 53": cronjob("c" * 53),
    "a target port as a list": spec_set(service(), "spec", "ports", [{"port": 80, "targetPort": [80]}]),
    "a label value of 63": set_labels(configmap(), tier="t" * 63),
    "a label value of 64": set_labels(configmap(), tier="t" * 64),
    "a label key with capitals in its prefix": set_labels(configmap(), **{"Example.com/tier": "x"}),
    "a selector value with a space": spec_set(service(), "spec", "selector", {"app": "a b"}),
    "annotations over 256 KiB": spec_set(configmap(), "metadata", "annotations", {"a": "x" * 256 * 1024}),
    "a statefulset whose 11th pod overflows": statefulset("d" * 61, 11),
    "secret data that is not base64": secret("hi!"),
    "secret data in base64": secret("aGk="),
    "a role named with colons": role("system:shop:reader"),
}


UNREADABLE = ("failed to create typed patch object", "failed to convert new object")


def server_refuses(kube: Kube, child: Child) -> bool:
    resource = kube.resource(child["apiVersion"], child["kind"])
    path = resource.path(child["metadata"].get("namespace"), child["metadata"]["name"])
    try:
        kube.request(
            "PATCH",
            path,
            child,
            query={"fieldManager": "stencil-check", "force": "true", "dryRun": "All"},
            content_type="application/apply-patch+yaml",
        )
    except errors.ApiError as error:
        # Server-side apply answers 500 for a body it cannot read into the kind's type at all (an
        # undeclared field, a string for a number, duplicate list keys, a malformed quantity).
        unreadable = error.status == 500 and error.message.startswith(UNREADABLE)
        if error.status in (400, 422) or unreadable:
            return True
        raise
    return False


@pytest.mark.parametrize("case", sorted(CASES))
def test_offline_verdict_is_the_servers(kube: Kube, namespace: str, case: str) -> None:
    child = CASES[case]
    if kube.is_namespaced(child["apiVersion"], child["kind"]):
        child = spec_set(child, "metadata", "namespace", namespace)
    problems = childschemas.check(child)
    offline_refuses = any(problem.severity == "error" for problem in problems)

    assert offline_refuses == server_refuses(kube, child), [str(p) for p in problems]
