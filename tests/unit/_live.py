"""A live child as the API server returns it: Stencil's applied fields, the server's defaults,
another manager's fields and the status, with ``managedFields`` saying who owns what."""

from __future__ import annotations

from typing import Any

from engine.core.decisions.plans import planning


def live_deployment(namespace: str, parent_uid: str, *, replicas: int = 2) -> dict[str, Any]:
    """A Deployment applied by Stencil for a parent, then defaulted, scaled status and annotated
    by others, as it would be read back in ``namespace``."""
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": "web-deployment",
            "namespace": namespace,
            "uid": f"uid-of-the-child-in-{namespace}",
            "resourceVersion": "4711",
            "generation": 1,
            "creationTimestamp": "2026-01-01T00:00:00Z",
            "annotations": {
                planning.HASH_ANNOTATION: f"hash-of-{parent_uid}-{namespace}",
                "deployment.kubernetes.io/revision": "1",
            },
            "labels": {"stencil.dev/parent-uid": parent_uid, "stencil.dev/parent-namespace": namespace},
            "ownerReferences": [
                {
                    "apiVersion": "example.com/v1",
                    "kind": "Web",
                    "name": "web",
                    "uid": parent_uid,
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
            "managedFields": [
                {
                    "manager": "stencil",
                    "operation": "Apply",
                    "apiVersion": "apps/v1",
                    "fieldsType": "FieldsV1",
                    "fieldsV1": {
                        "f:metadata": {
                            "f:annotations": {f"f:{planning.HASH_ANNOTATION}": {}},
                            "f:labels": {
                                "f:stencil.dev/parent-uid": {},
                                "f:stencil.dev/parent-namespace": {},
                            },
                            "f:ownerReferences": {f'k:{{"uid":"{parent_uid}"}}': {}},
                        },
                        "f:spec": {
                            "f:replicas": {},
                            "f:template": {
                                "f:spec": {
                                    "f:containers": {
                                        'k:{"name":"web"}': {
                                            ".": {},
                                            "f:env": {
                                                'k:{"name":"SERVICE_HOST"}': {
                                                    ".": {},
                                                    "f:name": {},
                                                    "f:value": {},
                                                }
                                            },
                                            "f:image": {},
                                            "f:name": {},
                                        }
                                    },
                                    "f:volumes": {
                                        'k:{"name":"data"}': {".": {}, "f:emptyDir": {}, "f:name": {}}
                                    },
                                }
                            },
                        },
                    },
                },
                {
                    "manager": "kube-controller-manager",
                    "operation": "Update",
                    "subresource": "status",
                    "fieldsType": "FieldsV1",
                    "fieldsV1": {"f:status": {"f:replicas": {}}},
                },
                {
                    "manager": "kube-controller-manager",
                    "operation": "Update",
                    "fieldsType": "FieldsV1",
                    "fieldsV1": {
                        "f:metadata": {"f:annotations": {"f:deployment.kubernetes.io/revision": {}}}
                    },
                },
            ],
        },
        "spec": {
            "replicas": replicas,
            "revisionHistoryLimit": 10,
            "template": {
                "spec": {
                    "containers": [
                        {
                            "name": "web",
                            "image": "web:1",
                            "env": [{"name": "SERVICE_HOST", "value": f"db.{namespace}.svc"}],
                            "terminationMessagePath": "/dev/termination-log",
                        },
                        {"name": "sidecar", "image": "injected:1"},
                    ],
                    "volumes": [{"name": "data", "emptyDir": {}}],
                    "restartPolicy": "Always",
                }
            },
        },
        "status": {"replicas": replicas},
    }
