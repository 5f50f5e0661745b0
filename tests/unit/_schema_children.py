"""Rendered children, as placement leaves them, for the offline schema-check tests.

Each builder gives a child the API server accepts, so a test changes one field
and sees exactly the problem that field causes.
"""

from __future__ import annotations

from typing import Any

from engine.core.model.children import placement


def labels(**extra: str) -> dict[str, str]:
    return {
        placement.MANAGED_BY_LABEL: placement.MANAGED_BY_VALUE,
        placement.KIND_LABEL: "web",
        placement.PARENT_NAME_LABEL: "shop",
        placement.PARENT_NAMESPACE_LABEL: "ns",
        placement.PARENT_UID_LABEL: placement.NO_UID,
        **extra,
    }


def metadata(name: str) -> dict[str, Any]:
    return {"name": name, "namespace": "ns", "labels": labels()}


def container(**fields: Any) -> dict[str, Any]:
    return {"name": "web", "image": "nginx:1.27", **fields}


def deployment(name: str = "shop-deployment", **pod_spec: Any) -> dict[str, Any]:
    """A Deployment of one ``container()``; ``pod_spec`` fields replace the pod spec's."""
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": metadata(name),
        "spec": {
            "replicas": 2,
            "selector": {"matchLabels": {"app": "shop"}},
            "template": {
                "metadata": {"labels": {"app": "shop"}},
                "spec": {"containers": [container()], **pod_spec},
            },
        },
    }


def service(name: str = "shop-service") -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": metadata(name),
        "spec": {"selector": {"app": "shop"}, "ports": [{"port": 80, "targetPort": "http"}]},
    }


def configmap(name: str = "shop-config") -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata(name), "data": {"a": "b"}}


def job(name: str = "shop-migrate", **spec: Any) -> dict[str, Any]:
    """A Job of one ``container()``; ``spec`` fields are added to its spec."""
    pod = {"spec": {"restartPolicy": "Never", "containers": [container()]}}
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": metadata(name),
        "spec": {"template": pod, **spec},
    }


def cronjob(name: str = "shop-backup") -> dict[str, Any]:
    template = {"spec": {"template": job(name)["spec"]["template"]}}
    spec = {"schedule": "*/5 * * * *", "jobTemplate": template}
    return {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": metadata(name), "spec": spec}


def statefulset(name: str = "shop-db", replicas: int = 1) -> dict[str, Any]:
    pod = {"metadata": {"labels": {"app": "db"}}, "spec": {"containers": [container()]}}
    spec = {
        "replicas": replicas,
        "serviceName": "db",
        "selector": {"matchLabels": {"app": "db"}},
        "template": pod,
    }
    return {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": metadata(name), "spec": spec}


def namespace_object(name: str = "shop") -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}


def errors_at(problems: list[Any]) -> set[tuple[str | int, ...]]:
    """The paths of the problems that are errors."""
    return {problem.path for problem in problems if problem.severity == "error"}
