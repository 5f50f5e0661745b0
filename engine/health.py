"""Is a child healthy?  kstatus rules, read from the object alone.

A parent is ``Ready`` only when its children are, so the engine needs one
answer per child that works for every kind it may render.  The answer follows
the rules of sigs.k8s.io/cli-utils ``pkg/kstatus`` (the ones kpt, Flux and
Config Sync share), in the same order:

1. generic: being deleted -> ``Terminating``; ``metadata.generation`` not yet
   seen by its controller (``status.observedGeneration``) -> ``InProgress``;
   a ``Reconciling=True`` condition -> ``InProgress``, ``Stalled=True`` -> ``Failed``;
2. per kind (Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, Pod,
   PersistentVolumeClaim, Service, CustomResourceDefinition …);
3. anything else with a ``Ready`` condition follows it (this is how a parent
   served by Stencil, or any kro/knative-style resource, reports); anything
   without one is ``Current`` as soon as it exists (ConfigMap, Secret,
   ServiceAccount, Role …).

Two deliberate departures, both because the question here is "is this child
healthy?" rather than kstatus's "has the apply settled?": a Pod in phase
``Failed`` is ``Failed`` (kstatus calls it Current, since it stopped changing),
and a LoadBalancer Service waits for an ingress address, not only a cluster IP.

Messages are short and written for a person reading ``kubectl get``: the caller
prefixes them with the child's kind and name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from engine import conditions

CURRENT: Final = "Current"
IN_PROGRESS: Final = "InProgress"
FAILED: Final = "Failed"
TERMINATING: Final = "Terminating"


@dataclass(frozen=True)
class Health:
    """One child's health: a kstatus status and why, in a few words."""

    status: str
    message: str

    @property
    def current(self) -> bool:
        return self.status == CURRENT


def assess(obj: Mapping[str, Any]) -> Health:
    """The health of one observed object."""
    generic = _generic(obj)
    if generic is not None:
        return generic
    rule = _RULES.get(_group_kind(obj))
    if rule is not None:
        return rule(obj)
    ready = conditions.find(obj, "Ready")
    if ready is not None:
        return _follow_ready(ready)
    return Health(CURRENT, "exists")


def _generic(obj: Mapping[str, Any]) -> Health | None:
    metadata = obj.get("metadata") or {}
    if metadata.get("deletionTimestamp"):
        return Health(TERMINATING, "being deleted")
    generation = metadata.get("generation")
    observed = _get(obj, "status", "observedGeneration")
    if isinstance(generation, int) and isinstance(observed, int) and observed != generation:
        return Health(IN_PROGRESS, f"generation {generation} not observed yet (observed {observed})")
    for condition in conditions.of(obj):
        if condition.get("status") != conditions.TRUE:
            continue
        if condition.get("type") == "Reconciling":
            return Health(IN_PROGRESS, _explain("reconciling", condition))
        if condition.get("type") == "Stalled":
            return Health(FAILED, _explain("stalled", condition))
    return None


def _follow_ready(ready: Mapping[str, Any]) -> Health:
    if ready.get("status") == conditions.TRUE:
        return Health(CURRENT, "ready")
    return Health(IN_PROGRESS, _explain("not ready", ready))


def _deployment(obj: Mapping[str, Any]) -> Health:
    # Without progressDeadlineSeconds the controller never sets Progressing, so
    # there is nothing to wait for on that side.
    rollout_done = _get(obj, "spec", "progressDeadlineSeconds") is None
    available = False
    for condition in conditions.of(obj):
        if condition.get("type") == "Progressing":
            if condition.get("reason") == "ProgressDeadlineExceeded":
                return Health(FAILED, _explain("progress deadline exceeded", condition))
            if (
                condition.get("status") == conditions.TRUE
                and condition.get("reason") == "NewReplicaSetAvailable"
            ):
                rollout_done = True
        elif condition.get("type") == "Available" and condition.get("status") == conditions.TRUE:
            available = True

    wanted = _int(obj, "spec", "replicas", default=1)
    replicas = _int(obj, "status", "replicas")
    updated = _int(obj, "status", "updatedReplicas")
    ready = _int(obj, "status", "readyReplicas")
    available_replicas = _int(obj, "status", "availableReplicas")
    if replicas < wanted:
        return Health(IN_PROGRESS, f"{replicas}/{wanted} replicas created")
    if updated < wanted:
        return Health(IN_PROGRESS, f"{updated}/{wanted} replicas updated")
    if replicas > wanted:
        return Health(IN_PROGRESS, _pending_termination(replicas - wanted))
    if available_replicas < updated:
        return Health(IN_PROGRESS, f"{available_replicas}/{updated} replicas available")
    if ready < wanted:
        return Health(IN_PROGRESS, f"{ready}/{wanted} replicas ready")
    if not rollout_done:
        return Health(IN_PROGRESS, "rollout not finished")
    if not available:
        return Health(IN_PROGRESS, "not available yet")
    return Health(CURRENT, f"{available_replicas}/{wanted} replicas available")


def _stateful_set(obj: Mapping[str, Any]) -> Health:
    if _get(obj, "spec", "updateStrategy", "type") == "OnDelete":
        # Pods are replaced only when someone deletes them: nothing to wait for.
        return Health(CURRENT, "uses the OnDelete update strategy")
    wanted = _int(obj, "spec", "replicas", default=1)
    replicas = _int(obj, "status", "replicas")
    ready = _int(obj, "status", "readyReplicas")
    current = _int(obj, "status", "currentReplicas")
    updated = _int(obj, "status", "updatedReplicas")
    partition = _int(obj, "spec", "updateStrategy", "rollingUpdate", "partition", default=-1)
    if replicas < wanted:
        return Health(IN_PROGRESS, f"{replicas}/{wanted} replicas created")
    if ready < wanted:
        return Health(IN_PROGRESS, f"{ready}/{wanted} replicas ready")
    if replicas > wanted:
        return Health(IN_PROGRESS, _pending_termination(replicas - wanted))
    if partition != -1:
        # A partitioned rollout only updates the ordinals at or above the partition.
        target = max(wanted - partition, 0)
        if updated < target:
            return Health(IN_PROGRESS, f"{updated}/{target} replicas updated (partitioned rollout)")
        return Health(CURRENT, f"partitioned rollout done: {updated} replicas updated")
    if current < wanted:
        return Health(IN_PROGRESS, f"{current}/{wanted} replicas at the current revision")
    if _get(obj, "status", "currentRevision") != _get(obj, "status", "updateRevision"):
        return Health(IN_PROGRESS, "waiting for the update revision to become current")
    return Health(CURRENT, f"{ready}/{wanted} replicas ready")


def _daemon_set(obj: Mapping[str, Any]) -> Health:
    desired = _int(obj, "status", "desiredNumberScheduled", default=-1)
    if desired == -1:
        return Health(IN_PROGRESS, "not scheduled yet")
    for count, what in (
        (_int(obj, "status", "currentNumberScheduled"), "scheduled"),
        (_int(obj, "status", "updatedNumberScheduled"), "updated"),
        (_int(obj, "status", "numberAvailable"), "available"),
        (_int(obj, "status", "numberReady"), "ready"),
    ):
        if count < desired:
            return Health(IN_PROGRESS, f"{count}/{desired} pods {what}")
    return Health(CURRENT, f"{desired}/{desired} pods ready")


def _replica_set(obj: Mapping[str, Any]) -> Health:
    failure = conditions.find(obj, "ReplicaFailure")
    if failure is not None and failure.get("status") == conditions.TRUE:
        return Health(IN_PROGRESS, _explain("replica failure", failure))
    wanted = _int(obj, "spec", "replicas", default=1)
    for count, what in (
        (_int(obj, "status", "fullyLabeledReplicas"), "labelled"),
        (_int(obj, "status", "availableReplicas"), "available"),
        (_int(obj, "status", "readyReplicas"), "ready"),
    ):
        if count < wanted:
            return Health(IN_PROGRESS, f"{count}/{wanted} replicas {what}")
    replicas = _int(obj, "status", "replicas")
    if replicas > wanted:
        return Health(IN_PROGRESS, _pending_termination(replicas - wanted))
    return Health(CURRENT, f"{wanted}/{wanted} replicas available")


def _job(obj: Mapping[str, Any]) -> Health:
    parallelism = _int(obj, "spec", "parallelism", default=1)
    completions = _int(obj, "spec", "completions", default=parallelism)
    succeeded = _int(obj, "status", "succeeded")
    failed = _int(obj, "status", "failed")
    if conditions.is_true(obj, "Complete"):
        return Health(CURRENT, f"complete: {succeeded}/{completions} succeeded")
    if conditions.is_true(obj, "Failed"):
        return Health(FAILED, _explain(f"failed: {failed} pods failed", conditions.find(obj, "Failed") or {}))
    if not _get(obj, "status", "startTime"):
        return Health(IN_PROGRESS, "not started yet")
    # kstatus: a started Job is doing what it was asked to; completion is for a rule to require.
    active = _int(obj, "status", "active")
    return Health(CURRENT, f"running: {active} active, {succeeded} succeeded, {failed} failed")


def _pod(obj: Mapping[str, Any]) -> Health:
    phase = _get(obj, "status", "phase") or ""
    if phase == "Succeeded":
        return Health(CURRENT, "completed")
    if phase == "Failed":
        return Health(FAILED, "failed" + (f": {reason}" if (reason := _get(obj, "status", "reason")) else ""))
    if phase == "Running":
        if conditions.is_true(obj, "Ready"):
            return Health(CURRENT, "ready")
        crashing = _crash_looping(obj)
        if crashing:
            return Health(FAILED, f"containers crash-looping: {', '.join(crashing)}")
        return Health(IN_PROGRESS, "running, not ready")
    if phase == "Pending":
        scheduled = conditions.find(obj, "PodScheduled")
        if (
            scheduled
            and scheduled.get("status") == conditions.FALSE
            and scheduled.get("reason") == "Unschedulable"
        ):
            return Health(FAILED, _explain("unschedulable", scheduled))
        return Health(IN_PROGRESS, "pending")
    if not phase:
        return Health(IN_PROGRESS, "not observed by the kubelet yet")
    return Health(IN_PROGRESS, f"phase {phase}")


def _crash_looping(obj: Mapping[str, Any]) -> list[str]:
    statuses = _get(obj, "status", "containerStatuses")
    if not isinstance(statuses, list):
        return []
    return [
        str(entry.get("name"))
        for entry in statuses
        if isinstance(entry, dict) and _get(entry, "state", "waiting", "reason") == "CrashLoopBackOff"
    ]


def _persistent_volume_claim(obj: Mapping[str, Any]) -> Health:
    phase = _get(obj, "status", "phase")
    if phase == "Bound":
        return Health(CURRENT, "bound")
    return Health(IN_PROGRESS, f"not bound yet (phase {phase or 'unknown'})")


def _service(obj: Mapping[str, Any]) -> Health:
    if _get(obj, "spec", "type") == "LoadBalancer":
        ingress = _get(obj, "status", "loadBalancer", "ingress")
        if not ingress:
            return Health(IN_PROGRESS, "waiting for a load-balancer address")
    return Health(CURRENT, "ready")


def _custom_resource_definition(obj: Mapping[str, Any]) -> Health:
    names = conditions.find(obj, "NamesAccepted")
    if names is not None and names.get("status") == conditions.FALSE:
        return Health(FAILED, _explain("names not accepted", names))
    established = conditions.find(obj, "Established")
    if established is not None:
        if established.get("status") == conditions.TRUE:
            return Health(CURRENT, "established")
        if established.get("status") == conditions.FALSE and established.get("reason") != "Installing":
            return Health(FAILED, _explain("not established", established))
    return Health(IN_PROGRESS, "installing")


def _exists(obj: Mapping[str, Any]) -> Health:
    return Health(CURRENT, "exists")


_RULES: dict[tuple[str, str], Callable[[Mapping[str, Any]], Health]] = {
    ("apps", "Deployment"): _deployment,
    ("extensions", "Deployment"): _deployment,
    ("apps", "StatefulSet"): _stateful_set,
    ("apps", "DaemonSet"): _daemon_set,
    ("extensions", "DaemonSet"): _daemon_set,
    ("apps", "ReplicaSet"): _replica_set,
    ("extensions", "ReplicaSet"): _replica_set,
    ("batch", "Job"): _job,
    ("batch", "CronJob"): _exists,
    ("", "Pod"): _pod,
    ("", "PersistentVolumeClaim"): _persistent_volume_claim,
    ("", "Service"): _service,
    ("", "ConfigMap"): _exists,
    ("", "Secret"): _exists,
    ("policy", "PodDisruptionBudget"): _exists,
    ("apiextensions.k8s.io", "CustomResourceDefinition"): _custom_resource_definition,
}


def _group_kind(obj: Mapping[str, Any]) -> tuple[str, str]:
    api_version = str(obj.get("apiVersion") or "")
    group = api_version.rpartition("/")[0]
    return group, str(obj.get("kind") or "")


def _pending_termination(extra: int) -> str:
    return f"{extra} old replica{'s' if extra != 1 else ''} pending termination"


def _explain(what: str, condition: Mapping[str, Any]) -> str:
    detail = condition.get("message") or condition.get("reason")
    return f"{what}: {detail}" if detail else what


def _get(obj: Mapping[str, Any], *path: str) -> Any:
    value: Any = obj
    for key in path:
        if not isinstance(value, Mapping):
            return None
        value = value.get(key)
    return value


def _int(obj: Mapping[str, Any], *path: str, default: int = 0) -> int:
    value = _get(obj, *path)
    # bool is an int in Python but never a count in Kubernetes.
    return value if isinstance(value, int) and not isinstance(value, bool) else default
