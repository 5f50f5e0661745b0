"""Previews of what a cluster would show, computed offline: healthy children, and the status that follows.

``stencil render --status`` shows a kind's author the parent status their rules
derive, before any cluster is involved.  Status rules read what the children's
controllers write (a Deployment's ``Available`` condition, a Service's node
port), which offline nobody writes; so ``healthy(child, now)`` writes it: the
child as it looks once its controller is done and every check of
``engine.core.decisions.health`` (kstatus rules) reads it as ``Current``.  Each kind gets
the fields its real controller sets, with the API server's wording where
Kubernetes fixes one, so a rule that passes a condition through shows what it
would show; addresses and ports that a cluster would pick are derived from the
child's name, so the same input gives the same preview.

``parent_status`` is then the third decision of a reconcile, made as after a
reconcile whose applies all succeeded: ``status.derive_status`` over the
rendered children as observed (healthy ones, or those the caller read from a
cluster).  Everything here is pure, and time is an input.
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from engine.core import door
from engine.core.decisions import rules, status
from engine.core.decisions.plans import ordering
from engine.core.model import apis, kinds
from engine.core.model.errors import KindError
from engine.core.model.objects import Obj

if TYPE_CHECKING:
    from engine.core.offline import admission

# Where a cluster's own picks would fall: kube-apiserver's default Service range, the
# default NodePort range, kind's Pod range, and TEST-NET-1 (RFC 5737) for load balancers.
_SERVICE_CIDR = ipaddress.ip_network("10.96.0.0/12")
_POD_CIDR = ipaddress.ip_network("10.244.0.0/16")
_LOAD_BALANCER_CIDR = ipaddress.ip_network("192.0.2.0/24")
_NODE_PORTS = range(30000, 32768)
_NODE_IP = "172.18.0.2"


def healthy(child: Mapping[str, Any], now: str) -> Obj:
    """``child`` as its controller leaves it once it is healthy: what ``health.assess`` reads as Current.

    ``now`` (RFC 3339) stamps the conditions and start times.  The child gets
    ``metadata.generation`` (1 unless it has one), as the API server gives
    every object on creation, and a controller that reports it has seen it.
    Kinds without a status (ConfigMap, Secret, RBAC...) keep none; a kind that
    is not built in gets ``observedGeneration`` and ``Ready=True``, the
    convention kstatus reads.
    """
    obj: Obj = json.loads(json.dumps(child))  # a copy that shares nothing with the rendered child
    metadata = obj.setdefault("metadata", {})
    generation = metadata.setdefault("generation", 1)
    key = apis.group_kind(obj)
    shape = _SHAPES.get(key)
    if shape is not None:
        shape(obj, now, generation)
    elif key not in apis.BUILTIN_KINDS:
        obj["status"] = {
            **(obj.get("status") or {}),
            "observedGeneration": generation,
            "conditions": [_condition("Ready", now, "Ready", "preview: ready")],
        }
    return obj


def healthy_related(child: Mapping[str, Any], now: str) -> list[Obj]:
    """The Pods a healthy ``child`` runs, where their names are known in advance: a StatefulSet's.

    For kinds that ``observe`` Pods (``related.Pod`` in status rules); a
    Deployment's or a Job's Pods have names a cluster makes up, so none are guessed.
    """
    if apis.group_kind(child) != ("apps", "StatefulSet"):
        return []
    spec = child.get("spec") or {}
    template = spec.get("template") or {}
    metadata = child.get("metadata") or {}
    pods = []
    for ordinal in range(_replicas(child)):
        name = f"{metadata.get('name')}-{ordinal}"
        pod_metadata: Obj = {
            **(template.get("metadata") or {}),
            "name": name,
            "generation": 1,
            "creationTimestamp": now,
        }
        if metadata.get("namespace"):
            pod_metadata["namespace"] = metadata["namespace"]
        labels = {**(pod_metadata.get("labels") or {}), "apps.kubernetes.io/pod-index": str(ordinal)}
        pod_metadata["labels"] = {**labels, "statefulset.kubernetes.io/pod-name": name}
        pod = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": pod_metadata,
            "spec": template.get("spec") or {},
        }
        pods.append(healthy(pod, now))
    return pods


def parent_status(
    kind: kinds.Kind,
    parent: Mapping[str, Any],
    now: str,
    *,
    observed: Sequence[Mapping[str, Any]] | None = None,
    fixtures: Sequence[Mapping[str, Any]] = (),
    is_namespaced: Callable[[str, str], bool] | None = None,
    crds: admission.OfflineCrds | None = None,
) -> tuple[Obj, list[KindError]]:
    """The parent with the status the kind's rules derive after a reconcile whose applies all succeeded.

    ``observed`` are the cluster's objects (children, and related objects of the
    kinds ``kind.yaml`` observes), as ``kubectl get -o yaml`` prints them, those
    in another namespace than the parent's left out; they are what the templates
    and the status rules read, and a rendered child missing from them is "not
    created yet".  Without them, every rendered child
    is observed ``healthy``, with the Pods of ``healthy_related``.  The kind's
    references read ``observed`` and ``fixtures`` (``door.offline``), in the
    templates and in the rules alike.  Returned as
    ``{apiVersion, kind, metadata: {name, namespace}, status}``, with each rule
    that fails there (``rules.failures``: live, its condition would read
    Unknown or its field be left out).  A template error is raised, as
    ``render`` raises it, and so is a child of a kind ``crds`` (with the
    pinned Kubernetes version) would not serve (``OfflineCrds.unserved``).
    """
    parent = dict(parent)
    parent["metadata"] = {"generation": 1, **(parent.get("metadata") or {})}
    observes = _observes(kind)
    made, found = door.offline(kind, parent, observed or (), fixtures, is_namespaced=is_namespaced)
    children, related, rendered = found.children, found.related, made.pairs
    if crds is not None and (refused := crds.unserved(made.located)):
        raise refused[0]
    if observed is None:
        children = [healthy(child, now) for _, child in rendered]
        if observes:
            related = [pod for child in children for pod in healthy_related(child, now)]
            related = [obj for obj in related if apis.group_kind(obj) in observes]
    outcome = made.outcome(waiting=ordering.gate(rendered, children, now).waiting)
    metadata = parent["metadata"]
    new = status.derive_status(kind, parent, children, outcome, now, related)
    shown = {
        "apiVersion": parent.get("apiVersion"),
        "kind": parent.get("kind"),
        "metadata": {key: metadata[key] for key in ("name", "namespace") if key in metadata},
        "status": new,
    }
    return shown, rules.failures(
        kind, parent, new, rules.Read(children, related, now, outcome.origins, outcome.references)
    )


def _observes(kind: kinds.Kind) -> set[tuple[str, str]]:
    """The (group, kind) of each kind ``kind.yaml`` observes."""
    return {(apis.group_of(api_version), kind_name) for api_version, kind_name in kind.observe}


def flatten_lists(objects: Iterable[Mapping[str, Any]]) -> list[Obj]:
    """``objects`` with each ``List`` (``kubectl get -o yaml`` of several objects) replaced by its items."""
    flat: list[Obj] = []
    for obj in objects:
        items = obj.get("items")
        if str(obj.get("kind", "")).endswith("List") and isinstance(items, list):
            flat.extend(flatten_lists(item for item in items if isinstance(item, Mapping)))
        else:
            flat.append(dict(obj))
    return flat


# -- one kind each -------------------------------------------------------------------------


def _deployment(obj: Obj, now: str, generation: int) -> None:
    replicas = _replicas(obj)
    name = obj["metadata"].get("name")
    obj["status"] = {
        "observedGeneration": generation,
        "replicas": replicas,
        "updatedReplicas": replicas,
        "readyReplicas": replicas,
        "availableReplicas": replicas,
        "conditions": [
            _condition(
                "Available",
                now,
                "MinimumReplicasAvailable",
                "Deployment has minimum availability.",
                updated=True,
            ),
            _condition(
                "Progressing",
                now,
                "NewReplicaSetAvailable",
                f'ReplicaSet "{name}-{_revision(obj)}" has successfully progressed.',
                updated=True,
            ),
        ],
    }


def _stateful_set(obj: Obj, now: str, generation: int) -> None:
    replicas = _replicas(obj)
    revision = f"{obj['metadata'].get('name')}-{_revision(obj)}"
    obj["status"] = {
        "observedGeneration": generation,
        "replicas": replicas,
        "readyReplicas": replicas,
        "currentReplicas": replicas,
        "updatedReplicas": replicas,
        "availableReplicas": replicas,
        "currentRevision": revision,
        "updateRevision": revision,
        "collisionCount": 0,
    }


def _replica_set(obj: Obj, now: str, generation: int) -> None:
    replicas = _replicas(obj)
    obj["status"] = {
        "observedGeneration": generation,
        "replicas": replicas,
        "fullyLabeledReplicas": replicas,
        "readyReplicas": replicas,
        "availableReplicas": replicas,
    }


def _daemon_set(obj: Obj, now: str, generation: int) -> None:
    # One node: the local clusters Stencil is tried on have one.
    obj["status"] = {
        "observedGeneration": generation,
        "desiredNumberScheduled": 1,
        "currentNumberScheduled": 1,
        "updatedNumberScheduled": 1,
        "numberAvailable": 1,
        "numberReady": 1,
        "numberMisscheduled": 0,
    }


def _job(obj: Obj, now: str, generation: int) -> None:
    # A Job without completions is done when one Pod succeeds (parallelism is no count of successes).
    completions = _count(obj, "completions", default=1)
    obj["status"] = {
        "startTime": now,
        "completionTime": now,
        "succeeded": completions,
        "active": 0,
        "ready": 0,
        "conditions": [
            _condition(
                kind,
                now,
                "CompletionsReached",
                "Reached expected number of succeeded pods",
                probed=True,
                probe_time=now,
            )
            for kind in ("SuccessCriteriaMet", "Complete")
        ],
    }


def _pod(obj: Obj, now: str, generation: int) -> None:
    spec = obj.get("spec") or {}
    containers = [c for c in spec.get("containers") or () if isinstance(c, Mapping)]
    obj["metadata"].setdefault("creationTimestamp", now)
    obj["status"] = {
        "phase": "Running",
        "hostIP": _NODE_IP,
        "podIP": _address(_POD_CIDR, obj),
        "startTime": now,
        "qosClass": "BestEffort",
        "conditions": [
            _condition(kind, now, None, None, probed=True)
            for kind in (
                "PodReadyToStartContainers",
                "Initialized",
                "Ready",
                "ContainersReady",
                "PodScheduled",
            )
        ],
        "containerStatuses": [
            {
                "name": container.get("name"),
                "image": container.get("image"),
                "imageID": "",
                "ready": True,
                "started": True,
                "restartCount": 0,
                "state": {"running": {"startedAt": now}},
            }
            for container in containers
        ],
    }


def _persistent_volume_claim(obj: Obj, now: str, generation: int) -> None:
    spec = obj.get("spec") or {}
    requests = (spec.get("resources") or {}).get("requests") or {}
    obj["status"] = {"phase": "Bound", "accessModes": spec.get("accessModes") or ["ReadWriteOnce"]}
    if "storage" in requests:
        obj["status"]["capacity"] = {"storage": requests["storage"]}


def _service(obj: Obj, now: str, generation: int) -> None:
    spec = obj.setdefault("spec", {})
    kind = spec.get("type") or "ClusterIP"
    if kind != "ExternalName" and not spec.get("clusterIP"):
        spec["clusterIP"] = _address(_SERVICE_CIDR, obj)
    if kind != "ExternalName" and spec.get("clusterIP") != "None":
        spec.setdefault("clusterIPs", [spec["clusterIP"]])
    if kind in ("NodePort", "LoadBalancer"):
        taken = {p.get("nodePort") for p in spec.get("ports") or () if isinstance(p, Mapping)}
        for index, port in enumerate(p for p in spec.get("ports") or () if isinstance(p, dict)):
            if not port.get("nodePort"):
                port["nodePort"] = _free_port(obj, index, taken)
                taken.add(port["nodePort"])
    load_balancer: Obj = {}
    if kind == "LoadBalancer":
        load_balancer["ingress"] = [{"ip": _address(_LOAD_BALANCER_CIDR, obj), "ipMode": "VIP"}]
    obj["status"] = {"loadBalancer": load_balancer}


_Shape = Callable[[Obj, str, int], None]
_SHAPES: dict[tuple[str, str], _Shape] = {
    ("apps", "Deployment"): _deployment,
    ("apps", "StatefulSet"): _stateful_set,
    ("apps", "ReplicaSet"): _replica_set,
    ("apps", "DaemonSet"): _daemon_set,
    ("batch", "Job"): _job,
    ("", "Pod"): _pod,
    ("", "PersistentVolumeClaim"): _persistent_volume_claim,
    ("", "Service"): _service,
}


# -- helpers -----------------------------------------------------------------------------------


def _condition(
    type: str,
    now: str,
    reason: str | None,
    message: str | None,
    *,
    updated: bool = False,
    probed: bool = False,
    probe_time: str | None = None,
) -> Obj:
    """A condition that is True, in the shape its controller writes (Deployments add lastUpdateTime,
    Jobs and Pods lastProbeTime, which a Pod leaves null)."""
    condition: Obj = {"type": type, "status": "True"}
    if probed:
        condition["lastProbeTime"] = probe_time
    if updated:
        condition["lastUpdateTime"] = now
    condition["lastTransitionTime"] = now
    if reason is not None:
        condition["reason"] = reason
    if message is not None:
        condition["message"] = message
    return condition


def _replicas(obj: Mapping[str, Any]) -> int:
    return _count(obj, "replicas", default=1)


def _count(obj: Mapping[str, Any], field: str, *, default: int) -> int:
    """A count of ``spec`` (an int, never a bool), or what the API server defaults it to."""
    value = (obj.get("spec") or {}).get(field)
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _revision(obj: Mapping[str, Any]) -> str:
    """A stand-in for the hash a controller names a revision by: it changes with the pod template."""
    template = json.dumps((obj.get("spec") or {}).get("template"), sort_keys=True, default=str)
    return hashlib.sha256(template.encode()).hexdigest()[:10]


def _pick(obj: Mapping[str, Any], what: str) -> int:
    """A stable number for the object's identity: the same child always gets the same address or port."""
    metadata = obj.get("metadata") or {}
    seed = json.dumps([what, obj.get("kind"), metadata.get("namespace"), metadata.get("name")])
    return int(hashlib.sha256(seed.encode()).hexdigest()[:12], 16)


def _address(network: ipaddress.IPv4Network | ipaddress.IPv6Network, obj: Mapping[str, Any]) -> str:
    """An address of ``network`` picked by the object's name (never the network's own or first)."""
    return str(network[2 + _pick(obj, str(network)) % (network.num_addresses - 3)])


def _free_port(obj: Mapping[str, Any], index: int, taken: set[Any]) -> int:
    port = _NODE_PORTS[_pick(obj, f"port {index}") % len(_NODE_PORTS)]
    while port in taken:
        port = _NODE_PORTS[(port - _NODE_PORTS.start + 1) % len(_NODE_PORTS)]
    return port
