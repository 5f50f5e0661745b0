# The cases in this module are ported from sigs.k8s.io/cli-utils, package pkg/kstatus/status,
# files status_compute_test.go, core_test.go, example_test.go and status_augment_test.go
# (https://github.com/kubernetes-sigs/cli-utils, commit 5895ad6c17dd; util_test.go tests field
# readers, not statuses, and has no case here).
# Copyright 2019 The Kubernetes Authors.  Licensed under the Apache License, Version 2.0
# (https://www.apache.org/licenses/LICENSE-2.0).
# Changed in porting: each manifest is written as the object its YAML parses to, built by the
# helpers below so that a case shows only what sets it apart from the others of its kind (every
# object is named `test` in namespace `qual` at generation 1 unless the case says otherwise); the
# Go around them is not kept; each case is checked for its expected status only, not for the
# conditions kstatus would add; the creation time the original takes from time.Now() is a fixed
# time, given as the string JSON would give and passed as `now`; status_augment_test.go's cases
# expect the status implied by the conditions Augment adds; depNotProgressing,
# depNoProgressDeadlineSeconds and depNotAvailable lose a duplicated `observedGeneration: 1`
# line, and trailing spaces after some condition types are gone.
"""Child health agrees with kstatus, case for case, except where docs/health.md says why not.

kstatus's ``NotFound`` has no case here: ``assess`` is only ever given an object that exists.
"""

from pathlib import Path
from typing import Any

import pytest

from engine.core.decisions.health import assess
from engine.core.model.objects import Obj

# The moment every case is judged at; it matters only to Pods that cannot be scheduled.
NOW = "2026-01-01T00:00:00Z"

DOCS = Path(__file__).resolve().parents[4] / "docs" / "health.md"


def judge(manifest: Obj) -> str:
    return assess(manifest, now=NOW).status


def resource(
    api_version: str,
    kind: str,
    *,
    name: str | None = "test",
    namespace: str | None = "qual",
    generation: int = 1,
    created: str | None = None,
    **sections: Any,
) -> Obj:
    """An object of `kind` with the metadata every case shares, and the `sections` given."""
    metadata: Obj = {"generation": generation}
    for key, value in (("name", name), ("namespace", namespace), ("creationTimestamp", created)):
        if value is not None:
            metadata[key] = value
    return {"apiVersion": api_version, "kind": kind, "metadata": metadata, **sections}


def unplaced(api_version: str, kind: str) -> Obj:
    """The bare object of kstatus's `...NoStatus` cases: no namespace and no status."""
    return resource(api_version, kind, namespace=None)


def cond(type_: str, status: str, reason: str | None = None, **more: str) -> Obj:
    return {"type": type_, "status": status, **({"reason": reason} if reason else {}), **more}


def pod(phase: str, *conditions: Obj, created: str | None = None, **more: Any) -> Obj:
    status: Obj = {"phase": phase, **more}
    if conditions:
        status["conditions"] = list(conditions)
    return resource("v1", "Pod", created=created, status=status)


def stateful_set(current: int, ready: int, replicas: int) -> Obj:
    status = {"observedGeneration": 1, "currentReplicas": current, "readyReplicas": ready}
    return resource("apps/v1", "StatefulSet", spec={"replicas": 4}, status={**status, "replicas": replicas})


def daemon_set(*, available: int = 4, ready: int = 4, generation: int = 1) -> Obj:
    scheduled = {f"{k}NumberScheduled": 4 for k in ("desired", "current", "updated")}
    status = {**scheduled, "numberAvailable": available, "numberReady": ready}
    return resource("apps/v1", "DaemonSet", generation=generation, status={**status, "observedGeneration": 1})


def deployment(*conditions: Obj, **sections: Any) -> Obj:
    replicas = {f"{k}Replicas": 1 for k in ("updated", "ready", "available")}
    status = {"observedGeneration": 1, **replicas, "replicas": 1, "conditions": list(conditions)}
    return resource("apps/v1", "Deployment", status=status, **sections)


def replica_set(want: int, *conditions: Obj, ready: int = 0, available: int = 0) -> Obj:
    status: Obj = {"observedGeneration": 1, "replicas": want, "fullyLabeledReplicas": want}
    status |= {"readyReplicas": ready or want, "availableReplicas": available or want}
    if conditions:
        status["conditions"] = list(conditions)
    return resource("apps/v1", "ReplicaSet", spec={"replicas": want}, status=status)


def custom(*conditions: Obj, **status: Any) -> Obj:
    return resource("something/v1", "MyCR", status={**status, "conditions": list(conditions)})


def job(spec: Obj, **status: Any) -> Obj:
    return resource("batch/v1", "Job", spec=spec, status=status)


def service(**spec: str) -> Obj:
    return resource("v1", "Service", spec=spec)


def crd(*conditions: Obj) -> Obj:
    bare = resource("apiextensions.k8s.io/v1", "CustomResourceDefinition", name=None, namespace=None)
    return bare | {"status": {"conditions": list(conditions)}} if conditions else bare


def augmented_pod(*conditions: Obj) -> Obj:
    """status_augment_test.go's running Pod, its conditions last changed at one moment."""
    at = "2019-06-04T01:16:13Z"
    return pod("Running", *(c | {"lastTransitionTime": at, "lastUpdateTime": at} for c in conditions))


UNSCHEDULABLE = cond("PodScheduled", "False", "Unschedulable")
CRASH_LOOPING = [{"name": "nginx", "state": {"waiting": {"reason": "CrashLoopBackOff"}}}]
NEW_REPLICA_SET = cond("Progressing", "True", "NewReplicaSetAvailable")
AVAILABLE = cond("Available", "True")
NAMES_ACCEPTED = cond("NamesAccepted", "True", "NoConflicts")

# depOK of status_compute_test.go, and the manifest of example_test.go.
DEPLOYMENT_OK = deployment(NEW_REPLICA_SET, AVAILABLE)

AGREED = [
    # status_compute_test.go, TestPodStatus
    pytest.param(unplaced("v1", "Pod"), "InProgress", id="TestPodStatus/podNoStatus"),
    pytest.param(pod("Running", cond("Ready", "True")), "Current", id="TestPodStatus/podReady"),
    pytest.param(
        pod("Succeeded", cond("Ready", "False", "PodCompleted")),
        "Current",
        id="TestPodStatus/podCompletedSuccessfully",
    ),
    pytest.param(
        pod("Pending", UNSCHEDULABLE, created=NOW),
        "InProgress",
        id="TestPodStatus/podBeingScheduled",
    ),
    pytest.param(pod("Pending", UNSCHEDULABLE), "Failed", id="TestPodStatus/podUnschedulable"),
    pytest.param(
        pod("Running", UNSCHEDULABLE, containerStatuses=CRASH_LOOPING),
        "Failed",
        id="TestPodStatus/podCrashLooping",
    ),
    # status_compute_test.go, TestPVCStatus
    pytest.param(unplaced("v1", "PersistentVolumeClaim"), "InProgress", id="TestPVCStatus/pvcNoStatus"),
    pytest.param(
        resource("v1", "PersistentVolumeClaim", status={"phase": "Bound"}),
        "Current",
        id="TestPVCStatus/pvcBound",
    ),
    # status_compute_test.go, TestStsStatus
    pytest.param(unplaced("apps/v1", "StatefulSet"), "InProgress", id="TestStsStatus/stsNoStatus"),
    pytest.param(
        resource("apps/v1", "StatefulSet", status={"observedGeneration": 1, "currentReplicas": 1}),
        "InProgress",
        id="TestStsStatus/stsBadStatus",
    ),
    pytest.param(stateful_set(4, 4, 4), "Current", id="TestStsStatus/stsOK"),
    pytest.param(stateful_set(4, 2, 4), "InProgress", id="TestStsStatus/stsLessReady"),
    pytest.param(stateful_set(2, 4, 4), "InProgress", id="TestStsStatus/stsLessCurrent"),
    pytest.param(stateful_set(4, 4, 8), "InProgress", id="TestStsStatus/stsExtraPods"),
    # status_compute_test.go, TestDaemonsetStatus
    pytest.param(unplaced("apps/v1", "DaemonSet"), "InProgress", id="TestDaemonsetStatus/dsNoStatus"),
    pytest.param(
        resource("apps/v1", "DaemonSet", status={"observedGeneration": 1, "currentReplicas": 1}),
        "InProgress",
        id="TestDaemonsetStatus/dsBadStatus",
    ),
    pytest.param(daemon_set(), "Current", id="TestDaemonsetStatus/dsOK"),
    pytest.param(daemon_set(ready=2), "InProgress", id="TestDaemonsetStatus/dsLessReady"),
    pytest.param(daemon_set(generation=2), "InProgress", id="TestDaemonsetStatus/dsDifferentGeneration"),
    pytest.param(daemon_set(available=2), "InProgress", id="TestDaemonsetStatus/dsLessAvailable"),
    # status_compute_test.go, TestDeploymentStatus
    pytest.param(unplaced("apps/v1", "Deployment"), "InProgress", id="TestDeploymentStatus/depNoStatus"),
    pytest.param(DEPLOYMENT_OK, "Current", id="TestDeploymentStatus/depOK"),
    pytest.param(
        deployment(
            cond("Progressing", "False", "Some reason"),
            AVAILABLE,
            spec={"progressDeadlineSeconds": 45},
        ),
        "InProgress",
        id="TestDeploymentStatus/depNotProgressing",
    ),
    pytest.param(deployment(AVAILABLE), "Current", id="TestDeploymentStatus/depNoProgressDeadlineSeconds"),
    pytest.param(
        deployment(NEW_REPLICA_SET, cond("Available", "False")),
        "InProgress",
        id="TestDeploymentStatus/depNotAvailable",
    ),
    # status_compute_test.go, TestReplicasetStatus
    pytest.param(unplaced("apps/v1", "ReplicaSet"), "InProgress", id="TestReplicasetStatus/rsNoStatus"),
    pytest.param(
        replica_set(2, cond("ReplicaFailure", "False")),
        "Current",
        id="TestReplicasetStatus/rsOK1",
    ),
    pytest.param(replica_set(2), "Current", id="TestReplicasetStatus/rsOK2"),
    pytest.param(replica_set(4, available=2), "InProgress", id="TestReplicasetStatus/rsLessAvailable"),
    pytest.param(replica_set(4, ready=2), "InProgress", id="TestReplicasetStatus/rsLessReady"),
    pytest.param(
        replica_set(4, cond("ReplicaFailure", "True")),
        "InProgress",
        id="TestReplicasetStatus/rsReplicaFailure",
    ),
    # status_compute_test.go, TestPDBStatus
    pytest.param(
        resource("policy/v1beta1", "PodDisruptionBudget", generation=2, status={"observedGeneration": 1}),
        "InProgress",
        id="TestPDBStatus/pdbNotObserved",
    ),
    pytest.param(
        resource("policy/v1beta1", "PodDisruptionBudget", status={"observedGeneration": 1}),
        "Current",
        id="TestPDBStatus/pdbObserved",
    ),
    # status_compute_test.go, TestCRDGenericStatus (custom resources, not CRDs)
    pytest.param(resource("something/v1", "MyCR"), "Current", id="TestCRDGenericStatus/crdNoStatus"),
    pytest.param(
        custom(cond("Ready", "True", "AllOk", message="All looks ok")),
        "Current",
        id="TestCRDGenericStatus/crdReady",
    ),
    pytest.param(
        custom(cond("Ready", "False", "NotReadyYet"), observedGeneration=1),
        "InProgress",
        id="TestCRDGenericStatus/crdNotReady",
    ),
    pytest.param(
        custom(cond("SomeCondition", "False")),
        "Current",
        id="TestCRDGenericStatus/crdNoCondition",
    ),
    pytest.param(
        resource("something/v1", "MyCR", generation=2, status={"observedGeneration": 1}),
        "InProgress",
        id="TestCRDGenericStatus/crdMismatchStatusGeneration",
    ),
    # status_compute_test.go, TestJobStatus
    pytest.param(resource("batch/v1", "Job"), "InProgress", id="TestJobStatus/jobNoStatus"),
    pytest.param(
        resource(
            "batch/v1",
            "Job",
            status={"succeeded": 1, "active": 0, "conditions": [cond("Complete", "True")]},
        ),
        "Current",
        id="TestJobStatus/jobComplete",
    ),
    pytest.param(
        job(
            {"completions": 4},
            succeeded=3,
            failed=1,
            conditions=[cond("Failed", "True", "JobFailed")],
        ),
        "Failed",
        id="TestJobStatus/jobFailed",
    ),
    pytest.param(
        job(
            {"completions": 10, "parallelism": 2},
            startTime="2019-06-04T01:17:13Z",
            succeeded=3,
            failed=1,
            active=2,
            conditions=[cond("Failed", "False"), cond("Complete", "False")],
        ),
        "Current",
        id="TestJobStatus/jobInProgress",
    ),
    # status_compute_test.go, TestCronJobStatus
    pytest.param(resource("batch/v1", "CronJob"), "Current", id="TestCronJobStatus/cronjobNoStatus"),
    pytest.param(
        resource("batch/v1", "CronJob", status=None),
        "Current",
        id="TestCronJobStatus/cronjobWithStatus",
    ),
    # status_compute_test.go, TestServiceStatus
    pytest.param(resource("v1", "Service"), "Current", id="TestServiceStatus/serviceDefault"),
    pytest.param(service(type="NodePort"), "Current", id="TestServiceStatus/serviceNodePort"),
    pytest.param(service(type="LoadBalancer"), "InProgress", id="TestServiceStatus/serviceLBnok"),
    # status_compute_test.go, TestCRDStatus
    pytest.param(crd(), "InProgress", id="TestCRDStatus/crdNoConditions"),
    pytest.param(
        crd(NAMES_ACCEPTED, cond("Established", "False", "Installing")),
        "InProgress",
        id="TestCRDStatus/crdInstalling",
    ),
    pytest.param(
        crd(cond("NamesAccepted", "False", "SomeReason")),
        "Failed",
        id="TestCRDStatus/crdNamesNotAccepted",
    ),
    pytest.param(
        crd(NAMES_ACCEPTED, cond("Established", "True", "InitialNamesAccepted")),
        "Current",
        id="TestCRDStatus/crdEstablished",
    ),
    # core_test.go: suspended Jobs (spec.suspend, then the Suspended condition's status)
    *(
        pytest.param(job({"suspend": suspend}, conditions=[cond("Suspended", suspended)]), status, id=id_)
        for suspend, suspended, status, id_ in [
            (True, "True", "Current", "TestSuspendedJobConditions"),
            (False, "False", "InProgress", "TestPreviouslySuspendedJobConditions"),
            (True, "False", "InProgress", "TestSuspendedJobTransitionConditions/toSuspendedState"),
            (False, "True", "InProgress", "TestSuspendedJobTransitionConditions/fromSuspendedState"),
        ]
    ),
    # example_test.go (TestExampleAugment uses the same manifest and adds no condition: Current too)
    pytest.param(DEPLOYMENT_OK, "Current", id="TestExampleCompute"),
    # status_augment_test.go: Augment adds Reconciling for InProgress, Stalled for Failed, nothing for Current
    pytest.param(pod("Running"), "InProgress", id="TestAugmentConditions/no existing conditions"),
    pytest.param(
        augmented_pod(cond("Ready", "False", "Pod has not started")),
        "InProgress",
        id="TestAugmentConditions/has other existing conditions",
    ),
    pytest.param(
        augmented_pod(cond("Reconciling", "True", "PodIsAbsolutelyNotReady")),
        "InProgress",
        id="TestAugmentConditions/already has condition of standard type InProgress",
    ),
    pytest.param(
        augmented_pod(cond("Stalled", "True", "PodHasFailed")),
        "Failed",
        id="TestAugmentConditions/already has condition of standard type Failed",
    ),
    pytest.param(
        resource("v1beta1", "SomeCustomKind", namespace="default"),
        "Current",
        id="TestAugmentConditions/custom resource with no conditions",
    ),
]

POD_FAILED = (
    "A Pod in phase Failed will not run again by itself. kstatus calls it Current because it has "
    "stopped changing, which is the right answer for an apply that waits for things to settle; "
    "a parent whose Pod failed is not healthy, so Stencil calls it Failed."
)
LOAD_BALANCER = (
    "A LoadBalancer Service exists to give its clients an external address. kstatus calls it "
    "Current once it has a cluster IP, so that an apply does not wait on clusters with no "
    "load-balancer provider; a parent is not usable until that address exists, so Stencil waits "
    "for status.loadBalancer.ingress."
)

# Cases where Stencil gives another answer on purpose: (kstatus's answer, Stencil's, why).
DEPARTURES = [
    pytest.param(
        pod("Failed", cond("Ready", "False", "PodCompleted")),
        "Current",
        "Failed",
        POD_FAILED,
        id="TestPodStatus/podCompletedFailed",
    ),
    pytest.param(
        service(type="LoadBalancer", clusterIP="1.2.3.4"),
        "Current",
        "InProgress",
        LOAD_BALANCER,
        id="TestServiceStatus/serviceLBok",
    ),
]


@pytest.mark.parametrize(("manifest", "kstatus"), AGREED)
def test_health_agrees_with_kstatus(manifest: Obj, kstatus: str) -> None:
    assert judge(manifest) == kstatus


@pytest.mark.parametrize(("manifest", "kstatus", "stencil", "reason"), DEPARTURES)
def test_health_departs_from_kstatus_only_on_purpose(
    manifest: Obj, kstatus: str, stencil: str, reason: str
) -> None:
    assert judge(manifest) == stencil != kstatus


@pytest.mark.parametrize(("manifest", "kstatus", "stencil", "reason"), DEPARTURES)
def test_health_departure_is_documented_with_its_reason(
    manifest: Obj, kstatus: str, stencil: str, reason: str
) -> None:
    documented = " ".join(DOCS.read_text(encoding="utf-8").split())

    assert reason in documented
