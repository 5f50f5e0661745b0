"""Realistic Kubernetes objects for the benchmarks, as an API server returns them.

The figures only mean something if the objects look like the ones a controller
really caches, so these carry what a server adds to an object applied with
``kubectl apply`` and then worked on by controllers: uid, resourceVersion,
timestamps, the ``last-applied-configuration`` annotation, a status with
conditions, and ``managedFields`` whose ``fieldsV1`` trees are derived from the
object's own fields the way the server builds them (lists of named items keyed
``k:{"name":...}``).  Everything is deterministic, so runs compare.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

Obj = dict[str, Any]

_TIME = "2026-01-01T00:00:00Z"
_LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


def fields_v1(value: Any) -> Any:
    """The ``fieldsV1`` set the server records for a manager that set ``value``."""
    if isinstance(value, dict):
        return {f"f:{key}": fields_v1(item) for key, item in value.items()}
    if isinstance(value, list) and value and all(isinstance(i, dict) for i in value):
        return {_list_key(item): {".": {}, **fields_v1(item)} for item in value}
    return {}


def _list_key(item: Obj) -> str:
    # The merge keys the server uses for the lists these samples contain.
    for keys in (("name",), ("type",), ("containerPort", "protocol")):
        if all(k in item for k in keys):
            return "k:" + json.dumps({k: item[k] for k in keys}, separators=(",", ":"))
    return "v:" + json.dumps(item, separators=(",", ":"))


def _managed(manager: str, api_version: str, fields: Obj, subresource: str | None = None) -> Obj:
    entry = {
        "manager": manager,
        "operation": "Update",
        "apiVersion": api_version,
        "time": _TIME,
        "fieldsType": "FieldsV1",
        "fieldsV1": fields_v1(fields),
    }
    if subresource:
        entry["subresource"] = subresource
    return entry


def _container(name: str, index: int) -> Obj:
    return {
        "name": name,
        "image": f"registry.example.com/team/{name}:1.{index % 17}.{index % 5}",
        "imagePullPolicy": "IfNotPresent",
        "ports": [{"name": "http", "containerPort": 8080, "protocol": "TCP"}],
        "env": [{"name": f"SETTING_{i}", "value": f"value-{index}-{i}"} for i in range(6)],
        "resources": {
            "requests": {"cpu": "100m", "memory": "128Mi"},
            "limits": {"cpu": "500m", "memory": "256Mi"},
        },
        "livenessProbe": {
            "httpGet": {"path": "/healthz", "port": 8080, "scheme": "HTTP"},
            "initialDelaySeconds": 5,
            "timeoutSeconds": 1,
            "periodSeconds": 10,
            "successThreshold": 1,
            "failureThreshold": 3,
        },
        "readinessProbe": {
            "httpGet": {"path": "/readyz", "port": 8080, "scheme": "HTTP"},
            "timeoutSeconds": 1,
            "periodSeconds": 5,
            "successThreshold": 1,
            "failureThreshold": 3,
        },
        "volumeMounts": [{"name": "config", "mountPath": "/etc/app"}],
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "File",
    }


def deployment(index: int, namespace: str = "default") -> Obj:
    name = f"web-{index:05d}"
    labels = {"app": name, "team": f"team-{index % 7}", "app.kubernetes.io/managed-by": "stencil"}
    spec: Obj = {
        "replicas": 1 + index % 3,
        "selector": {"matchLabels": {"app": name}},
        "template": {
            "metadata": {"labels": labels, "annotations": {"checksum/config": uuid.UUID(int=index).hex * 2}},
            "spec": {
                "containers": [_container("app", index), _container("sidecar", index)],
                "volumes": [{"name": "config", "configMap": {"name": f"{name}-config", "defaultMode": 420}}],
                "restartPolicy": "Always",
                "terminationGracePeriodSeconds": 30,
                "dnsPolicy": "ClusterFirst",
                "securityContext": {},
                "schedulerName": "default-scheduler",
            },
        },
        "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}},
        "revisionHistoryLimit": 10,
        "progressDeadlineSeconds": 600,
    }
    status: Obj = {
        "observedGeneration": 2,
        "replicas": spec["replicas"],
        "updatedReplicas": spec["replicas"],
        "readyReplicas": spec["replicas"],
        "availableReplicas": spec["replicas"],
        "conditions": [
            {
                "type": kind,
                "status": "True",
                "lastUpdateTime": _TIME,
                "lastTransitionTime": _TIME,
                "reason": reason,
                "message": message.format(name=name),
            }
            for kind, reason, message in (
                ("Available", "MinimumReplicasAvailable", "Deployment has minimum availability."),
                (
                    "Progressing",
                    "NewReplicaSetAvailable",
                    'ReplicaSet "{name}-7d4b9c8f6" has successfully progressed.',
                ),
            )
        ],
    }
    applied = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": namespace, "labels": labels},
        "spec": spec,
    }
    controller_fields = {
        "metadata": {"annotations": {"deployment.kubernetes.io/revision": ""}},
        "status": status,
    }
    return _as_served(
        applied,
        index,
        metadata={"generation": 2, "annotations": {"deployment.kubernetes.io/revision": "2"}},
        managed=[_managed("kube-controller-manager", "apps/v1", controller_fields, "status")],
        status=status,
    )


def configmap(index: int, namespace: str = "default") -> Obj:
    name = f"settings-{index:05d}"
    labels = {"app": f"web-{index:05d}", "app.kubernetes.io/managed-by": "stencil"}
    data = {f"setting-{i}.conf": f"# generated for {name}\n" + "key = value\n" * (8 + i) for i in range(4)}
    applied = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": namespace, "labels": labels},
        "data": data,
    }
    return _as_served(applied, index)


def _as_served(
    applied: Obj, index: int, *, metadata: Obj | None = None, managed: list[Obj] | None = None, **fields: Any
) -> Obj:
    """``applied`` as the server returns it after ``kubectl apply``, plus what others changed."""
    meta = {**applied["metadata"], **(metadata or {})}
    body = {k: v for k, v in applied.items() if k not in ("apiVersion", "kind", "metadata")}
    kubectl_fields = {"metadata": {"labels": meta["labels"], "annotations": {_LAST_APPLIED: ""}}, **body}
    meta["annotations"] = {
        **meta.get("annotations", {}),
        _LAST_APPLIED: json.dumps(applied, separators=(",", ":")),
    }
    meta.update(uid=str(uuid.UUID(int=index + 1)), resourceVersion=str(1000 + index), creationTimestamp=_TIME)
    meta["managedFields"] = [
        _managed("kubectl-client-side-apply", applied["apiVersion"], kubectl_fields),
        *(managed or []),
    ]
    return {**applied, "metadata": meta, **fields}


def list_body(kind: str, items: list[Obj]) -> bytes:
    """A list response as the server sends it: items without apiVersion/kind, compact JSON."""
    stripped = [{k: v for k, v in item.items() if k not in ("apiVersion", "kind")} for item in items]
    api_version = items[0]["apiVersion"] if items else "v1"
    body = {
        "kind": f"{kind}List",
        "apiVersion": api_version,
        "metadata": {"resourceVersion": "99999"},
        "items": stripped,
    }
    return json.dumps(body, separators=(",", ":")).encode()
