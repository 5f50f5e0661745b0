"""What Stencil knows of Kubernetes' built-in API without asking a server.

Where no API server can be asked (``stencil render``, ``stencil rbac``, a scope
before discovery), a built-in kind's REST plural and scope come from one table,
``BUILTIN_KINDS``; a custom resource's come from its CRD (``engine.core.offline.admission``).
RBAC names a group and a resource, never a version, so the table does not either.
This is also the one home of how an ``apiVersion`` splits into group and version.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

NAMESPACED: Final = True
CLUSTER: Final = False
_ADMISSION = "admissionregistration.k8s.io"

# (group, kind) -> (plural, namespaced)
BUILTIN_KINDS: Mapping[tuple[str, str], tuple[str, bool]] = {
    ("", "ComponentStatus"): ("componentstatuses", CLUSTER),
    ("", "ConfigMap"): ("configmaps", NAMESPACED),
    ("", "Endpoints"): ("endpoints", NAMESPACED),
    ("", "Event"): ("events", NAMESPACED),
    ("", "LimitRange"): ("limitranges", NAMESPACED),
    ("", "Namespace"): ("namespaces", CLUSTER),
    ("", "Node"): ("nodes", CLUSTER),
    ("", "PersistentVolume"): ("persistentvolumes", CLUSTER),
    ("", "PersistentVolumeClaim"): ("persistentvolumeclaims", NAMESPACED),
    ("", "Pod"): ("pods", NAMESPACED),
    ("", "ReplicationController"): ("replicationcontrollers", NAMESPACED),
    ("", "ResourceQuota"): ("resourcequotas", NAMESPACED),
    ("", "Secret"): ("secrets", NAMESPACED),
    ("", "Service"): ("services", NAMESPACED),
    ("", "ServiceAccount"): ("serviceaccounts", NAMESPACED),
    (_ADMISSION, "MutatingWebhookConfiguration"): ("mutatingwebhookconfigurations", CLUSTER),
    (_ADMISSION, "ValidatingAdmissionPolicy"): ("validatingadmissionpolicies", CLUSTER),
    (_ADMISSION, "ValidatingAdmissionPolicyBinding"): ("validatingadmissionpolicybindings", CLUSTER),
    (_ADMISSION, "ValidatingWebhookConfiguration"): ("validatingwebhookconfigurations", CLUSTER),
    ("apiextensions.k8s.io", "CustomResourceDefinition"): ("customresourcedefinitions", CLUSTER),
    ("apiregistration.k8s.io", "APIService"): ("apiservices", CLUSTER),
    ("apps", "ControllerRevision"): ("controllerrevisions", NAMESPACED),
    ("apps", "DaemonSet"): ("daemonsets", NAMESPACED),
    ("apps", "Deployment"): ("deployments", NAMESPACED),
    ("apps", "ReplicaSet"): ("replicasets", NAMESPACED),
    ("apps", "StatefulSet"): ("statefulsets", NAMESPACED),
    ("autoscaling", "HorizontalPodAutoscaler"): ("horizontalpodautoscalers", NAMESPACED),
    ("batch", "CronJob"): ("cronjobs", NAMESPACED),
    ("batch", "Job"): ("jobs", NAMESPACED),
    ("certificates.k8s.io", "CertificateSigningRequest"): ("certificatesigningrequests", CLUSTER),
    ("coordination.k8s.io", "Lease"): ("leases", NAMESPACED),
    ("discovery.k8s.io", "EndpointSlice"): ("endpointslices", NAMESPACED),
    ("events.k8s.io", "Event"): ("events", NAMESPACED),
    ("flowcontrol.apiserver.k8s.io", "FlowSchema"): ("flowschemas", CLUSTER),
    ("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration"): ("prioritylevelconfigurations", CLUSTER),
    ("networking.k8s.io", "Ingress"): ("ingresses", NAMESPACED),
    ("networking.k8s.io", "IngressClass"): ("ingressclasses", CLUSTER),
    ("networking.k8s.io", "NetworkPolicy"): ("networkpolicies", NAMESPACED),
    ("node.k8s.io", "RuntimeClass"): ("runtimeclasses", CLUSTER),
    ("policy", "PodDisruptionBudget"): ("poddisruptionbudgets", NAMESPACED),
    ("rbac.authorization.k8s.io", "ClusterRole"): ("clusterroles", CLUSTER),
    ("rbac.authorization.k8s.io", "ClusterRoleBinding"): ("clusterrolebindings", CLUSTER),
    ("rbac.authorization.k8s.io", "Role"): ("roles", NAMESPACED),
    ("rbac.authorization.k8s.io", "RoleBinding"): ("rolebindings", NAMESPACED),
    ("scheduling.k8s.io", "PriorityClass"): ("priorityclasses", CLUSTER),
    ("storage.k8s.io", "CSIDriver"): ("csidrivers", CLUSTER),
    ("storage.k8s.io", "CSINode"): ("csinodes", CLUSTER),
    ("storage.k8s.io", "StorageClass"): ("storageclasses", CLUSTER),
    ("storage.k8s.io", "VolumeAttachment"): ("volumeattachments", CLUSTER),
}


def split_api_version(api_version: str) -> tuple[str, str]:
    """``apps/v1`` -> ``("apps", "v1")``; ``v1`` -> ``("", "v1")`` (the core group)."""
    group, _, version = api_version.rpartition("/")
    return group, version


def group_of(api_version: str) -> str:
    """``apps/v1`` -> ``apps``; ``v1`` -> ``""`` (the core group)."""
    return split_api_version(api_version)[0]


def builtin_is_namespaced(api_version: str, kind: str) -> bool:
    """Scope from the built-in table: every kind not known to be cluster-scoped is namespaced."""
    found = BUILTIN_KINDS.get((group_of(api_version), kind))
    return found[1] if found else True
