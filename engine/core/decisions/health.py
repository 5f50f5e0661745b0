"""Is a child healthy?  kstatus rules, read from the object alone.

A parent is ``Ready`` only when its children are, so the engine needs one
answer per child that works for every kind it may render.  The answer is the
one sigs.k8s.io/cli-utils ``pkg/kstatus/status`` computes (the rules kpt, Flux
and Config Sync share), rule for rule and in the same order, and
``tests/unit/core/decisions/test_health_agrees_with_kstatus.py`` runs kstatus's own test
tables against it:

1. generic: being deleted -> ``Terminating``; ``metadata.generation`` not yet
   seen by its controller (``status.observedGeneration``) -> ``InProgress``;
   the first ``Reconciling=True`` or ``Stalled=True`` condition ->
   ``InProgress`` or ``Failed``;
2. per kind (Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, CronJob, Pod,
   PersistentVolumeClaim, Service, ConfigMap, Secret, PodDisruptionBudget,
   CustomResourceDefinition), keyed by group and kind, never version;
3. anything else with a ``Ready`` condition follows it (this is how a parent
   served by Stencil, or any kro/knative-style resource, reports); anything
   without one is ``Current`` as soon as it exists (ServiceAccount, Role …).

Where kstatus cannot compute a status (a Pod in phase ``Unknown``, whose node
stopped reporting) its pollers report ``Unknown``; so does ``assess``.

One rule needs a clock: kstatus gives an unschedulable Pod 15 seconds from its
creation before calling it ``Failed``.  ``assess`` takes that time as ``now``
and reads the wall clock only when ``now`` is not given and such a Pod is
being judged; a caller that passes ``now`` gets a pure function.

Two deliberate departures, both because the question here is "is this child
healthy, so its parent may be Ready?" rather than kstatus's "has the apply
settled?" (``docs/health.md`` gives the reasons at length): a Pod in phase
``Failed`` is ``Failed`` (kstatus calls it ``Current``, since it stopped
changing), and a LoadBalancer Service waits for an ingress address, not only a
cluster IP.

Messages are short and written for a person reading ``kubectl get``: the caller
prefixes them with the child's kind and name.  A child that is not ``Current`` and
carries a failure condition of its own (``ReplicaFailure``, ``Failed``, any
``…Failure`` or ``…Failed`` type that is True) has it quoted in the child's own words,
so ``0/2 replicas created`` says why: ``ReplicaFailure FailedCreate: pods "…" is
forbidden: …``.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from engine.core.decisions import conditions
from engine.core.model import apis

CURRENT: Final = "Current"
IN_PROGRESS: Final = "InProgress"
FAILED: Final = "Failed"
TERMINATING: Final = "Terminating"
UNKNOWN: Final = "Unknown"

# kstatus's ScheduleWindow: how long a Pod may be unschedulable before it is Failed.
SCHEDULE_WINDOW: Final = datetime.timedelta(seconds=15)

# The Deployment controller reads this progressDeadlineSeconds as "no deadline".
_NO_PROGRESS_DEADLINE: Final = 2**31 - 1


@dataclass(frozen=True)
class Health:
    """One child's health: a kstatus status and why, in a few words."""

    status: str
    message: str

    @property
    def current(self) -> bool:
        return self.status == CURRENT


def assess(obj: Mapping[str, Any], *, now: datetime.datetime | str | None = None) -> Health:
    """The health of one observed object.

    ``now`` (an aware datetime or an RFC 3339 string) is the time the object is
    judged at; it matters only for a Pod that cannot be scheduled.  Without it
    that one rule reads the wall clock.
    """
    verdict = _judge(obj, _moment(now))
    if verdict.current:
        return verdict
    return _quoting_failure(verdict, obj)


def _judge(obj: Mapping[str, Any], moment: datetime.datetime | None) -> Health:
    generic = _generic(obj)
    if generic is not None:
        return generic
    rule = _RULES.get(apis.group_kind(obj))
    if rule is not None:
        return rule(obj, moment)
    ready = _follow_ready(obj)
    if ready is not None:
        return ready
    return Health(CURRENT, "exists")


def _quoting_failure(verdict: Health, obj: Mapping[str, Any]) -> Health:
    """``verdict`` with the object's own failure condition added, unless it already says it."""
    for condition in conditions.of(obj):
        kind = str(condition.get("type") or "")
        if condition.get("status") != conditions.TRUE or not kind.endswith(("Failure", "Failed")):
            continue
        detail = str(condition.get("message") or "")
        if (detail or str(condition.get("reason") or kind)) in verdict.message:
            return verdict
        words = " ".join(str(w) for w in (kind, condition.get("reason")) if w)
        quoted = f"{words}: {detail}" if detail else words
        return Health(verdict.status, f"{verdict.message} ({quoted})")
    return verdict


# A rule sees the object and the moment it is judged at (None: the wall clock, if it needs one).
_Rule = Callable[[Mapping[str, Any], datetime.datetime | None], Health]


def _generic(obj: Mapping[str, Any]) -> Health | None:
    metadata = obj.get("metadata") or {}
    if metadata.get("deletionTimestamp"):
        return Health(TERMINATING, "being deleted")
    generation = _integer(obj, "metadata", "generation")
    observed = _integer(obj, "status", "observedGeneration")
    if generation is not None and observed is not None and observed != generation:
        return Health(IN_PROGRESS, f"generation {generation} not observed yet (observed {observed})")
    for condition in conditions.of(obj):
        if condition.get("status") != conditions.TRUE:
            continue
        if condition.get("type") == "Reconciling":
            return Health(IN_PROGRESS, _explain("reconciling", condition))
        if condition.get("type") == "Stalled":
            return Health(FAILED, _explain("stalled", condition))
    return None


def _follow_ready(obj: Mapping[str, Any]) -> Health | None:
    # The first Ready condition with a proper status decides; one with any other
    # status is passed over, as kstatus does.
    for condition in conditions.of(obj):
        if condition.get("type") != "Ready":
            continue
        if condition.get("status") == conditions.TRUE:
            return Health(CURRENT, "ready")
        if condition.get("status") in (conditions.FALSE, conditions.UNKNOWN):
            return Health(IN_PROGRESS, _explain("not ready", condition))
    return None


def _deployment(obj: Mapping[str, Any], _now: datetime.datetime | None) -> Health:
    # Without a progress deadline the controller never sets Progressing, so
    # there is nothing to wait for on that side.
    deadline = _int(obj, "spec", "progressDeadlineSeconds", default=_NO_PROGRESS_DEADLINE)
    rollout_done = deadline == _NO_PROGRESS_DEADLINE
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


def _stateful_set(obj: Mapping[str, Any], _now: datetime.datetime | None) -> Health:
    if _str(obj, "spec", "updateStrategy", "type") == "OnDelete":
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
    if _str(obj, "status", "currentRevision") != _str(obj, "status", "updateRevision"):
        return Health(IN_PROGRESS, "waiting for the update revision to become current")
    return Health(CURRENT, f"{ready}/{wanted} replicas ready")


def _daemon_set(obj: Mapping[str, Any], _now: datetime.datetime | None) -> Health:
    # The generic rule skips the generation check when either field is missing;
    # a DaemonSet its controller has acted on always has both, so here a missing
    # one means "not seen yet".
    if _integer(obj, "metadata", "generation") is None:
        return Health(IN_PROGRESS, "metadata.generation not set yet")
    if _integer(obj, "status", "observedGeneration") is None:
        return Health(IN_PROGRESS, "not observed by its controller yet")
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


def _replica_set(obj: Mapping[str, Any], _now: datetime.datetime | None) -> Health:
    failure = _condition_with_status(obj, "ReplicaFailure", conditions.TRUE)
    if failure is not None:
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


def _job(obj: Mapping[str, Any], _now: datetime.datetime | None) -> Health:
    parallelism = _int(obj, "spec", "parallelism", default=1)
    completions = _int(obj, "spec", "completions", default=parallelism)
    succeeded = _int(obj, "status", "succeeded")
    failed = _int(obj, "status", "failed")
    # The first of Complete, Failed or Suspended that holds decides.
    for condition in conditions.of(obj):
        if condition.get("status") != conditions.TRUE:
            continue
        if condition.get("type") == "Complete":
            return Health(CURRENT, f"complete: {succeeded}/{completions} succeeded")
        if condition.get("type") == "Failed":
            return Health(FAILED, _explain(f"failed: {failed} pods failed", condition))
        # Suspended only while spec.suspend still asks for it: either way round is a transition.
        if condition.get("type") == "Suspended" and _get(obj, "spec", "suspend") is True:
            return Health(CURRENT, "suspended")
    if not _str(obj, "status", "startTime"):
        return Health(IN_PROGRESS, "not started yet")
    # kstatus: a started Job is doing what it was asked to; completion is for a rule to require.
    active = _int(obj, "status", "active")
    return Health(CURRENT, f"running: {active} active, {succeeded} succeeded, {failed} failed")


def _pod(obj: Mapping[str, Any], now: datetime.datetime | None) -> Health:
    phase = _str(obj, "status", "phase")
    if phase == "Succeeded":
        return Health(CURRENT, "completed")
    if phase == "Failed":
        # Departure: kstatus says Current (the Pod stopped changing); a failed child is not healthy.
        return Health(FAILED, "failed" + (f": {reason}" if (reason := _str(obj, "status", "reason")) else ""))
    if phase == "Running":
        if _condition_with_status(obj, "Ready", conditions.TRUE) is not None:
            return Health(CURRENT, "ready")
        crashing = _crash_looping(obj)
        if crashing:
            return Health(FAILED, f"containers crash-looping: {', '.join(crashing)}")
        return Health(IN_PROGRESS, "running, not ready")
    if phase == "Pending":
        scheduled = _condition_with_status(obj, "PodScheduled", conditions.FALSE)
        if scheduled is not None and scheduled.get("reason") == "Unschedulable":
            created = _timestamp((obj.get("metadata") or {}).get("creationTimestamp"))
            moment = now if now is not None else datetime.datetime.now(datetime.UTC)
            # No readable creationTimestamp reads as long ago, as in kstatus.
            if created is not None and moment - SCHEDULE_WINDOW < created:
                return Health(IN_PROGRESS, _explain("not scheduled yet", scheduled))
            return Health(FAILED, _explain("unschedulable", scheduled))
        return Health(IN_PROGRESS, "pending")
    if not phase:
        return Health(IN_PROGRESS, "not observed by the kubelet yet")
    if phase == "Unknown":
        return Health(UNKNOWN, "phase Unknown: its node is not reporting")
    return Health(UNKNOWN, f"unrecognised phase {phase!r}")


def _crash_looping(obj: Mapping[str, Any]) -> list[str]:
    statuses = _get(obj, "status", "containerStatuses")
    if not isinstance(statuses, list):
        return []
    return [
        str(entry.get("name"))
        for entry in statuses
        if isinstance(entry, dict) and _get(entry, "state", "waiting", "reason") == "CrashLoopBackOff"
    ]


def _persistent_volume_claim(obj: Mapping[str, Any], _now: datetime.datetime | None) -> Health:
    phase = _str(obj, "status", "phase")
    if phase == "Bound":
        return Health(CURRENT, "bound")
    return Health(IN_PROGRESS, f"not bound yet (phase {phase or 'unknown'})")


def _service(obj: Mapping[str, Any], _now: datetime.datetime | None) -> Health:
    if _str(obj, "spec", "type") == "LoadBalancer":
        if not _str(obj, "spec", "clusterIP"):
            return Health(IN_PROGRESS, "no cluster IP assigned yet")
        # Departure: kstatus stops at the cluster IP; the address is what the Service is for.
        if not _get(obj, "status", "loadBalancer", "ingress"):
            return Health(IN_PROGRESS, "waiting for a load-balancer address")
    return Health(CURRENT, "ready")


def _custom_resource_definition(obj: Mapping[str, Any], _now: datetime.datetime | None) -> Health:
    # Conditions are read in order, so the first one that settles the question decides.
    for condition in conditions.of(obj):
        kind, status = condition.get("type"), condition.get("status")
        if kind == "NamesAccepted" and status == conditions.FALSE:
            return Health(FAILED, _explain("names not accepted", condition))
        if kind == "Established":
            if status == conditions.FALSE and condition.get("reason") != "Installing":
                return Health(FAILED, _explain("not established", condition))
            if status == conditions.TRUE:
                return Health(CURRENT, "established")
    return Health(IN_PROGRESS, "installing")


def _exists(obj: Mapping[str, Any], _now: datetime.datetime | None) -> Health:
    return Health(CURRENT, "exists")


_RULES: dict[tuple[str, str], _Rule] = {
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


def _moment(now: datetime.datetime | str | None) -> datetime.datetime | None:
    """``now`` as an aware datetime, checked at once so a bad one fails on every call."""
    if now is None:
        return None
    moment = _timestamp(now) if isinstance(now, str) else now
    if moment is None or moment.tzinfo is None:
        raise ValueError(f"now must be an RFC 3339 time or an aware datetime, not {now!r}")
    return moment


def _timestamp(value: Any) -> datetime.datetime | None:
    """An RFC 3339 time (it always carries an offset), or ``None``."""
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else None


def _condition_with_status(obj: Mapping[str, Any], type: str, status: str) -> dict[str, Any] | None:
    """The first condition of ``type`` whose status is ``status`` (there may be others of the type)."""
    for condition in conditions.of(obj):
        if condition.get("type") == type and condition.get("status") == status:
            return condition
    return None


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


def _integer(obj: Mapping[str, Any], *path: str) -> int | None:
    value = _get(obj, *path)
    # bool is an int in Python but never a count in Kubernetes.
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _int(obj: Mapping[str, Any], *path: str, default: int = 0) -> int:
    value = _integer(obj, *path)
    return default if value is None else value


def _str(obj: Mapping[str, Any], *path: str) -> str:
    """A string field, or "" when it is missing or not a string (kstatus reads both as unset)."""
    value = _get(obj, *path)
    return value if isinstance(value, str) else ""
