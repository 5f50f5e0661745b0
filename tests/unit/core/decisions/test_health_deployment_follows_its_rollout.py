"""A Deployment is Current once every wanted replica is updated, available and ready."""

from typing import Any

from engine.core.decisions.health import Health, assess


def deployment(
    wanted: int = 2,
    *,
    replicas: int = 2,
    updated: int = 2,
    ready: int = 2,
    available: int = 2,
    progressing: tuple[str, str] = ("True", "NewReplicaSetAvailable"),
    available_condition: str = "True",
) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web-deployment", "namespace": "shop", "generation": 1},
        "spec": {"replicas": wanted, "progressDeadlineSeconds": 600},
        "status": {
            "observedGeneration": 1,
            "replicas": replicas,
            "updatedReplicas": updated,
            "readyReplicas": ready,
            "availableReplicas": available,
            "conditions": [
                {"type": "Available", "status": available_condition, "reason": "MinimumReplicasAvailable"},
                {
                    "type": "Progressing",
                    "status": progressing[0],
                    "reason": progressing[1],
                    "message": 'ReplicaSet "web-deployment-5d4f" has timed out progressing.',
                },
            ],
        },
    }


def test_deployment_with_every_replica_available_is_current() -> None:
    assert assess(deployment()) == Health("Current", "2/2 replicas available")


def test_deployment_with_too_few_replicas_created_is_in_progress() -> None:
    assert assess(deployment(3, replicas=1, updated=1, ready=1, available=1)) == Health(
        "InProgress", "1/3 replicas created"
    )


def test_deployment_with_too_few_updated_replicas_is_in_progress() -> None:
    assert assess(deployment(updated=1)) == Health("InProgress", "1/2 replicas updated")


def test_deployment_with_old_replicas_left_is_in_progress() -> None:
    assert assess(deployment(replicas=3)) == Health("InProgress", "1 old replica pending termination")


def test_deployment_with_too_few_available_replicas_is_in_progress() -> None:
    assert assess(deployment(ready=1, available=1)) == Health("InProgress", "1/2 replicas available")


def test_deployment_whose_new_replica_set_is_not_available_yet_is_in_progress() -> None:
    assert assess(deployment(progressing=("True", "ReplicaSetUpdated"))) == Health(
        "InProgress", "rollout not finished"
    )


def test_deployment_not_reporting_available_is_in_progress() -> None:
    assert assess(deployment(available_condition="False")) == Health("InProgress", "not available yet")


def test_deployment_past_its_progress_deadline_has_failed() -> None:
    verdict = assess(deployment(ready=0, available=0, progressing=("False", "ProgressDeadlineExceeded")))

    assert verdict == Health(
        "Failed", 'progress deadline exceeded: ReplicaSet "web-deployment-5d4f" has timed out progressing.'
    )


def test_deployment_scaled_to_zero_is_current() -> None:
    assert assess(deployment(0, replicas=0, updated=0, ready=0, available=0)).status == "Current"


def test_deployment_just_created_without_status_is_in_progress() -> None:
    fresh = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {"replicas": 2},
    }

    assert assess(fresh) == Health("InProgress", "0/2 replicas created")
