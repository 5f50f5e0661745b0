"""StatefulSet, DaemonSet, ReplicaSet and Job follow their kstatus rules."""

from typing import Any

from engine.core.decisions.health import Health, assess


def stateful_set(status: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "StatefulSet", "spec": {"replicas": 3, **spec}, "status": status}


SETTLED = {
    "replicas": 3,
    "readyReplicas": 3,
    "currentReplicas": 3,
    "updatedReplicas": 3,
    "currentRevision": "db-7",
    "updateRevision": "db-7",
}


def test_stateful_set_with_every_replica_ready_at_the_current_revision_is_current() -> None:
    assert assess(stateful_set(SETTLED)) == Health("Current", "3/3 replicas ready")


def test_stateful_set_with_too_few_ready_replicas_is_in_progress() -> None:
    assert assess(stateful_set({**SETTLED, "readyReplicas": 2})) == Health("InProgress", "2/3 replicas ready")


def test_stateful_set_mid_revision_is_in_progress() -> None:
    verdict = assess(stateful_set({**SETTLED, "updateRevision": "db-8"}))

    assert verdict == Health("InProgress", "waiting for the update revision to become current")


def test_stateful_set_partitioned_rollout_waits_only_for_the_ordinals_above_the_partition() -> None:
    partitioned = {"type": "RollingUpdate", "rollingUpdate": {"partition": 2}}
    status = {**SETTLED, "updatedReplicas": 1, "currentReplicas": 2, "updateRevision": "db-8"}

    assert assess(stateful_set(status, updateStrategy=partitioned)).status == "Current"
    assert (
        assess(stateful_set({**status, "updatedReplicas": 0}, updateStrategy=partitioned)).status
        == "InProgress"
    )


def test_daemon_set_is_current_when_every_scheduled_pod_is_ready() -> None:
    status = {
        "desiredNumberScheduled": 2,
        "currentNumberScheduled": 2,
        "updatedNumberScheduled": 2,
        "numberAvailable": 2,
        "numberReady": 1,
    }
    daemon_set = {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": "agent", "generation": 1},
        "status": {"observedGeneration": 1, **status},
    }

    assert assess(daemon_set) == Health("InProgress", "1/2 pods ready")
    assert assess({**daemon_set, "status": {"observedGeneration": 1, **status, "numberReady": 2}}) == Health(
        "Current", "2/2 pods ready"
    )
    assert assess({**daemon_set, "status": {"observedGeneration": 1}}) == Health(
        "InProgress", "not scheduled yet"
    )


def test_daemon_set_its_controller_has_not_observed_is_in_progress() -> None:
    # kstatus checks that a DaemonSet carries both generations: its controller always sets them.
    counted = {"desiredNumberScheduled": 0, "numberReady": 0}
    unobserved = {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"generation": 1},
        "status": counted,
    }
    no_generation = {**unobserved, "metadata": {}, "status": {"observedGeneration": 1, **counted}}

    assert assess(unobserved) == Health("InProgress", "not observed by its controller yet")
    assert assess(no_generation) == Health("InProgress", "metadata.generation not set yet")


def test_replica_set_with_a_replica_failure_is_in_progress_and_says_why() -> None:
    failure = {
        "type": "ReplicaFailure",
        "status": "True",
        "message": 'pods "web-x" is forbidden: exceeded quota',
    }
    replica_set = {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "spec": {"replicas": 1},
        "status": {"replicas": 0, "conditions": [failure]},
    }

    assert assess(replica_set) == Health(
        "InProgress", 'replica failure: pods "web-x" is forbidden: exceeded quota'
    )


def test_job_is_in_progress_until_it_starts_current_while_running_and_complete() -> None:
    job: dict[str, Any] = {"apiVersion": "batch/v1", "kind": "Job", "spec": {"completions": 1}, "status": {}}
    running = {**job, "status": {"startTime": "2026-01-01T00:00:00Z", "active": 1}}
    complete = {
        **job,
        "status": {"succeeded": 1, "conditions": [{"type": "Complete", "status": "True"}]},
    }

    assert assess(job) == Health("InProgress", "not started yet")
    assert assess(running) == Health("Current", "running: 1 active, 0 succeeded, 0 failed")
    assert assess(complete) == Health("Current", "complete: 1/1 succeeded")


def test_failed_job_has_failed() -> None:
    failed = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "status": {
            "failed": 6,
            "conditions": [{"type": "Failed", "status": "True", "reason": "BackoffLimitExceeded"}],
        },
    }

    assert assess(failed) == Health("Failed", "failed: 6 pods failed: BackoffLimitExceeded")
