"""What Stencil knows of Kubernetes' built-in API without asking a server.

Where no API server can be asked (``stencil render``, ``stencil rbac``, a scope
before discovery), a built-in kind's REST plural and scope come from one table,
``BUILTIN_KINDS``; a custom resource's come from its CRD (``engine.core.offline.admission``).
RBAC names a group and a resource, never a version, so the table does not either.
This is also the one home of how an ``apiVersion`` splits into group and version,
and of which groups are Kubernetes' own (``is_builtin_group``), where no custom
resource can be and so no kind's parent.
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


# The groups with a dot that Kubernetes serves itself: kube-apiserver's (every one it can
# enable, alpha included) and the metrics APIs Kubernetes defines for add-ons to serve.
_BUILTIN_DOTTED_GROUPS: Final = frozenset(
    {
        _ADMISSION,
        "apiextensions.k8s.io",
        "apiregistration.k8s.io",
        "authentication.k8s.io",
        "authorization.k8s.io",
        "certificates.k8s.io",
        "coordination.k8s.io",
        "custom.metrics.k8s.io",
        "discovery.k8s.io",
        "events.k8s.io",
        "external.metrics.k8s.io",
        "flowcontrol.apiserver.k8s.io",
        "internal.apiserver.k8s.io",
        "metrics.k8s.io",
        "networking.k8s.io",
        "node.k8s.io",
        "rbac.authorization.k8s.io",
        "resource.k8s.io",
        "scheduling.k8s.io",
        "storage.k8s.io",
        "storagemigration.k8s.io",
    }
)


def is_builtin_group(group: str) -> bool:
    """Whether ``group`` is Kubernetes' own, so that no custom resource is in it.

    A CRD's group must hold a dot (the API server refuses one without), so a group
    without one (the core group ``""``, ``apps``, ``batch``, ``autoscaling``,
    ``policy`` …) is never a custom resource's.  Of the dotted groups Kubernetes'
    own are listed: a rule on the ``.k8s.io`` suffix would also catch the custom
    groups under it (Gateway API's ``gateway.networking.k8s.io``, the Network's
    ``samplecrd.k8s.io``), which are CRDs a kind may well own.
    """
    return "." not in group or group in _BUILTIN_DOTTED_GROUPS


def unownable_parent(api_version: str, kind: str) -> str | None:
    """Why ``kind`` of ``api_version`` cannot be a kind's parent, or None when it can."""
    group = group_of(api_version)
    if not is_builtin_group(group):
        return None
    where = f"the {group} group" if group else "the core group"
    return (
        f"{kind} ({api_version}) is built into Kubernetes ({where}): a parent is a custom resource "
        f"the kind owns, served from its CRD, not a way to attach to objects it does not own "
        f"(every {kind} in the cluster would be reconciled and have conditions written into its "
        f"status); read such objects with references:"
    )
