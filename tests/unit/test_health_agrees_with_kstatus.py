# The cases in this module are ported from sigs.k8s.io/cli-utils, package pkg/kstatus/status,
# files status_compute_test.go, core_test.go, example_test.go and status_augment_test.go
# (https://github.com/kubernetes-sigs/cli-utils, commit 5895ad6c17dd; util_test.go tests field
# readers, not statuses, and has no case here).
# Copyright 2019 The Kubernetes Authors.  Licensed under the Apache License, Version 2.0
# (https://www.apache.org/licenses/LICENSE-2.0).
# Changed in porting: the manifests are kept as YAML but the Go around them is not; each case is
# checked for its expected status only, not for the conditions kstatus would add; the creation
# time the original takes from time.Now() is a fixed time, quoted as JSON would give it and passed
# as `now`; status_augment_test.go's cases expect the status implied by the conditions Augment
# adds; depNotProgressing, depNoProgressDeadlineSeconds and depNotAvailable lose a duplicated
# `observedGeneration: 1` line, and trailing spaces after some condition types are gone.
"""Child health agrees with kstatus, case for case, except where docs/health.md says why not.

kstatus's ``NotFound`` has no case here: ``assess`` is only ever given an object that exists.
"""

from pathlib import Path
from typing import Any

import pytest
import yaml

from engine.core.decisions.health import assess

# The moment every case is judged at; it matters only to Pods that cannot be scheduled.
NOW = "2026-01-01T00:00:00Z"

DOCS = Path(__file__).resolve().parents[2] / "docs" / "health.md"


def judge(manifest: str) -> str:
    obj: dict[str, Any] = yaml.safe_load(manifest)
    return assess(obj, now=NOW).status


# depOK of status_compute_test.go, and the manifest of example_test.go.
DEPLOYMENT_OK = """
apiVersion: apps/v1
kind: Deployment
metadata:
   name: test
   generation: 1
   namespace: qual
status:
   observedGeneration: 1
   updatedReplicas: 1
   readyReplicas: 1
   availableReplicas: 1
   replicas: 1
   conditions:
    - type: Progressing
      status: "True"
      reason: NewReplicaSetAvailable
    - type: Available
      status: "True"
"""

AGREED = [
    # status_compute_test.go, TestPodStatus
    pytest.param(
        """
apiVersion: v1
kind: Pod
metadata:
   generation: 1
   name: test
""",
        "InProgress",
        id="TestPodStatus/podNoStatus",
    ),
    pytest.param(
        """
apiVersion: v1
kind: Pod
metadata:
   generation: 1
   name: test
   namespace: qual
status:
   conditions:
    - type: Ready
      status: "True"
   phase: Running
""",
        "Current",
        id="TestPodStatus/podReady",
    ),
    pytest.param(
        """
apiVersion: v1
kind: Pod
metadata:
   generation: 1
   name: test
   namespace: qual
status:
   phase: Succeeded
   conditions:
    - type: Ready
      status: "False"
      reason: PodCompleted
""",
        "Current",
        id="TestPodStatus/podCompletedSuccessfully",
    ),
    pytest.param(
        f"""
apiVersion: v1
kind: Pod
metadata:
   creationTimestamp: "{NOW}"
   generation: 1
   name: test
   namespace: qual
status:
   phase: Pending
   conditions:
    - type: PodScheduled
      status: "False"
      reason: Unschedulable
""",
        "InProgress",
        id="TestPodStatus/podBeingScheduled",
    ),
    pytest.param(
        """
apiVersion: v1
kind: Pod
metadata:
   generation: 1
   name: test
   namespace: qual
status:
   phase: Pending
   conditions:
    - type: PodScheduled
      status: "False"
      reason: Unschedulable
""",
        "Failed",
        id="TestPodStatus/podUnschedulable",
    ),
    pytest.param(
        """
apiVersion: v1
kind: Pod
metadata:
   generation: 1
   name: test
   namespace: qual
status:
   phase: Running
   conditions:
    - type: PodScheduled
      status: "False"
      reason: Unschedulable
   containerStatuses:
    - name: nginx
      state:
         waiting:
            reason: CrashLoopBackOff
""",
        "Failed",
        id="TestPodStatus/podCrashLooping",
    ),
    # status_compute_test.go, TestPVCStatus
    pytest.param(
        """
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
   generation: 1
   name: test
""",
        "InProgress",
        id="TestPVCStatus/pvcNoStatus",
    ),
    pytest.param(
        """
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
   generation: 1
   name: test
   namespace: qual
status:
   phase: Bound
""",
        "Current",
        id="TestPVCStatus/pvcBound",
    ),
    # status_compute_test.go, TestStsStatus
    pytest.param(
        """
apiVersion: apps/v1
kind: StatefulSet
metadata:
   generation: 1
   name: test
""",
        "InProgress",
        id="TestStsStatus/stsNoStatus",
    ),
    pytest.param(
        """
apiVersion: apps/v1
kind: StatefulSet
metadata:
   generation: 1
   name: test
   namespace: qual
status:
   observedGeneration: 1
   currentReplicas: 1
""",
        "InProgress",
        id="TestStsStatus/stsBadStatus",
    ),
    pytest.param(
        """
apiVersion: apps/v1
kind: StatefulSet
metadata:
   generation: 1
   name: test
   namespace: qual
spec:
   replicas: 4
status:
   observedGeneration: 1
   currentReplicas: 4
   readyReplicas: 4
   replicas: 4
""",
        "Current",
        id="TestStsStatus/stsOK",
    ),
    pytest.param(
        """
apiVersion: apps/v1
kind: StatefulSet
metadata:
   generation: 1
   name: test
   namespace: qual
spec:
   replicas: 4
status:
   observedGeneration: 1
   currentReplicas: 4
   readyReplicas: 2
   replicas: 4
""",
        "InProgress",
        id="TestStsStatus/stsLessReady",
    ),
    pytest.param(
        """
apiVersion: apps/v1
kind: StatefulSet
metadata:
   generation: 1
   name: test
   namespace: qual
spec:
   replicas: 4
status:
   observedGeneration: 1
   currentReplicas: 2
   readyReplicas: 4
   replicas: 4
""",
        "InProgress",
        id="TestStsStatus/stsLessCurrent",
    ),
    pytest.param(
        """
apiVersion: apps/v1
kind: StatefulSet
metadata:
   generation: 1
   name: test
   namespace: qual
spec:
   replicas: 4
status:
   observedGeneration: 1
   currentReplicas: 4
   readyReplicas: 4
   replicas: 8
""",
        "InProgress",
        id="TestStsStatus/stsExtraPods",
    ),
    # status_compute_test.go, TestDaemonsetStatus
    pytest.param(
        """
apiVersion: apps/v1
kind: DaemonSet
metadata:
   name: test
   generation: 1
""",
        "InProgress",
        id="TestDaemonsetStatus/dsNoStatus",
    ),
    pytest.param(
        """
apiVersion: apps/v1
kind: DaemonSet
metadata:
   name: test
   namespace: qual
   generation: 1
status:
   observedGeneration: 1
   currentReplicas: 1
""",
        "InProgress",
        id="TestDaemonsetStatus/dsBadStatus",
    ),
    pytest.param(
        """
apiVersion: apps/v1
kind: DaemonSet
metadata:
   name: test
   namespace: qual
   generation: 1
status:
   desiredNumberScheduled: 4
   currentNumberScheduled: 4
   updatedNumberScheduled: 4
   numberAvailable: 4
   numberReady: 4
   observedGeneration: 1
""",
        "Current",
        id="TestDaemonsetStatus/dsOK",
    ),
    pytest.param(
        """
apiVersion: apps/v1
kind: DaemonSet
metadata:
   name: test
   namespace: qual
   generation: 1
status:
   observedGeneration: 1
   desiredNumberScheduled: 4
   currentNumberScheduled: 4
   updatedNumberScheduled: 4
   numberAvailable: 4
   numberReady: 2
""",
        "InProgress",
        id="TestDaemonsetStatus/dsLessReady",
    ),
    pytest.param(
        """
apiVersion: apps/v1
kind: DaemonSet
metadata:
   name: test
   namespace: qual
   generation: 2
status:
   desiredNumberScheduled: 4
   currentNumberScheduled: 4
   updatedNumberScheduled: 4
   numberAvailable: 4
   numberReady: 4
   observedGeneration: 1
""",
        "InProgress",
        id="TestDaemonsetStatus/dsDifferentGeneration",
    ),
    pytest.param(
        """
apiVersion: apps/v1
kind: DaemonSet
metadata:
   name: test
   namespace: qual
   generation: 1
status:
   observedGeneration: 1
   desiredNumberScheduled: 4
   currentNumberScheduled: 4
   updatedNumberScheduled: 4
   numberAvailable: 2
   numberReady: 4
""",
        "InProgress",
        id="TestDaemonsetStatus/dsLessAvailable",
    ),
    # status_compute_test.go, TestDeploymentStatus
    pytest.param(
        """
apiVersion: apps/v1
kind: Deployment
metadata:
   name: test
   generation: 1
""",
        "InProgress",
        id="TestDeploymentStatus/depNoStatus",
    ),
    pytest.param(
        DEPLOYMENT_OK,
        "Current",
        id="TestDeploymentStatus/depOK",
    ),
    pytest.param(
        """
apiVersion: apps/v1
kind: Deployment
metadata:
   name: test
   generation: 1
   namespace: qual
spec:
   progressDeadlineSeconds: 45
status:
   observedGeneration: 1
   updatedReplicas: 1
   readyReplicas: 1
   availableReplicas: 1
   replicas: 1
   conditions:
    - type: Progressing
      status: "False"
      reason: Some reason
    - type: Available
      status: "True"
""",
        "InProgress",
        id="TestDeploymentStatus/depNotProgressing",
    ),
    pytest.param(
        """
apiVersion: apps/v1
kind: Deployment
metadata:
   name: test
   generation: 1
   namespace: qual
status:
   observedGeneration: 1
   updatedReplicas: 1
   readyReplicas: 1
   availableReplicas: 1
   replicas: 1
   conditions:
    - type: Available
      status: "True"
""",
        "Current",
        id="TestDeploymentStatus/depNoProgressDeadlineSeconds",
    ),
    pytest.param(
        """
apiVersion: apps/v1
kind: Deployment
metadata:
   name: test
   generation: 1
   namespace: qual
status:
   observedGeneration: 1
   updatedReplicas: 1
   readyReplicas: 1
   availableReplicas: 1
   replicas: 1
   conditions:
    - type: Progressing
      status: "True"
      reason: NewReplicaSetAvailable
    - type: Available
      status: "False"
""",
        "InProgress",
        id="TestDeploymentStatus/depNotAvailable",
    ),
    # status_compute_test.go, TestReplicasetStatus
    pytest.param(
        """
apiVersion: apps/v1
kind: ReplicaSet
metadata:
   name: test
   generation: 1
""",
        "InProgress",
        id="TestReplicasetStatus/rsNoStatus",
    ),
    pytest.param(
        """
apiVersion: apps/v1
kind: ReplicaSet
metadata:
   name: test
   namespace: qual
   generation: 1
spec:
   replicas: 2
status:
   observedGeneration: 1
   replicas: 2
   readyReplicas: 2
   availableReplicas: 2
   fullyLabeledReplicas: 2
   conditions:
    - type: ReplicaFailure
      status: "False"
""",
        "Current",
        id="TestReplicasetStatus/rsOK1",
    ),
    pytest.param(
        """
apiVersion: apps/v1
kind: ReplicaSet
metadata:
   name: test
   namespace: qual
   generation: 1
spec:
   replicas: 2
status:
   observedGeneration: 1
   fullyLabeledReplicas: 2
   replicas: 2
   readyReplicas: 2
   availableReplicas: 2
""",
        "Current",
        id="TestReplicasetStatus/rsOK2",
    ),
    pytest.param(
        """
apiVersion: apps/v1
kind: ReplicaSet
metadata:
   name: test
   namespace: qual
   generation: 1
spec:
   replicas: 4
status:
   observedGeneration: 1
   replicas: 4
   readyReplicas: 4
   availableReplicas: 2
   fullyLabeledReplicas: 4
""",
        "InProgress",
        id="TestReplicasetStatus/rsLessAvailable",
    ),
    pytest.param(
        """
apiVersion: apps/v1
kind: ReplicaSet
metadata:
   name: test
   namespace: qual
   generation: 1
spec:
   replicas: 4
status:
   observedGeneration: 1
   replicas: 4
   readyReplicas: 2
   availableReplicas: 4
   fullyLabeledReplicas: 4
""",
        "InProgress",
        id="TestReplicasetStatus/rsLessReady",
    ),
    pytest.param(
        """
apiVersion: apps/v1
kind: ReplicaSet
metadata:
   name: test
   namespace: qual
   generation: 1
spec:
   replicas: 4
status:
   observedGeneration: 1
   replicas: 4
   readyReplicas: 4
   fullyLabeledReplicas: 4
   availableReplicas: 4
   conditions:
    - type: ReplicaFailure
      status: "True"
""",
        "InProgress",
        id="TestReplicasetStatus/rsReplicaFailure",
    ),
    # status_compute_test.go, TestPDBStatus
    pytest.param(
        """
apiVersion: policy/v1beta1
kind: PodDisruptionBudget
metadata:
   generation: 2
   name: test
   namespace: qual
status:
   observedGeneration: 1
""",
        "InProgress",
        id="TestPDBStatus/pdbNotObserved",
    ),
    pytest.param(
        """
apiVersion: policy/v1beta1
kind: PodDisruptionBudget
metadata:
   generation: 1
   name: test
   namespace: qual
status:
   observedGeneration: 1
""",
        "Current",
        id="TestPDBStatus/pdbObserved",
    ),
    # status_compute_test.go, TestCRDGenericStatus (custom resources, not CRDs)
    pytest.param(
        """
apiVersion: something/v1
kind: MyCR
metadata:
   generation: 1
   name: test
   namespace: qual
""",
        "Current",
        id="TestCRDGenericStatus/crdNoStatus",
    ),
    pytest.param(
        """
apiVersion: something/v1
kind: MyCR
metadata:
   name: test
   namespace: qual
   generation: 1
status:
   conditions:
    - type: Ready
      status: "True"
      message: All looks ok
      reason: AllOk
""",
        "Current",
        id="TestCRDGenericStatus/crdReady",
    ),
    pytest.param(
        """
apiVersion: something/v1
kind: MyCR
metadata:
   generation: 1
   name: test
   namespace: qual
status:
   observedGeneration: 1
   conditions:
    - type: Ready
      status: "False"
      reason: NotReadyYet
""",
        "InProgress",
        id="TestCRDGenericStatus/crdNotReady",
    ),
    pytest.param(
        """
apiVersion: something/v1
kind: MyCR
metadata:
   name: test
   namespace: qual
   generation: 1
status:
   conditions:
    - type: SomeCondition
      status: "False"
""",
        "Current",
        id="TestCRDGenericStatus/crdNoCondition",
    ),
    pytest.param(
        """
apiVersion: something/v1
kind: MyCR
metadata:
   name: test
   namespace: qual
   generation: 2
status:
   observedGeneration: 1
""",
        "InProgress",
        id="TestCRDGenericStatus/crdMismatchStatusGeneration",
    ),
    # status_compute_test.go, TestJobStatus
    pytest.param(
        """
apiVersion: batch/v1
kind: Job
metadata:
   name: test
   namespace: qual
   generation: 1
""",
        "InProgress",
        id="TestJobStatus/jobNoStatus",
    ),
    pytest.param(
        """
apiVersion: batch/v1
kind: Job
metadata:
   name: test
   namespace: qual
   generation: 1
status:
   succeeded: 1
   active: 0
   conditions:
    - type: Complete
      status: "True"
""",
        "Current",
        id="TestJobStatus/jobComplete",
    ),
    pytest.param(
        """
apiVersion: batch/v1
kind: Job
metadata:
   name: test
   namespace: qual
   generation: 1
spec:
   completions: 4
status:
   succeeded: 3
   failed: 1
   conditions:
    - type: Failed
      status: "True"
      reason: JobFailed
""",
        "Failed",
        id="TestJobStatus/jobFailed",
    ),
    pytest.param(
        """
apiVersion: batch/v1
kind: Job
metadata:
   name: test
   namespace: qual
   generation: 1
spec:
   completions: 10
   parallelism: 2
status:
   startTime: "2019-06-04T01:17:13Z"
   succeeded: 3
   failed: 1
   active: 2
   conditions:
    - type: Failed
      status: "False"
    - type: Complete
      status: "False"
""",
        "Current",
        id="TestJobStatus/jobInProgress",
    ),
    # status_compute_test.go, TestCronJobStatus
    pytest.param(
        """
apiVersion: batch/v1
kind: CronJob
metadata:
   name: test
   namespace: qual
   generation: 1
""",
        "Current",
        id="TestCronJobStatus/cronjobNoStatus",
    ),
    pytest.param(
        """
apiVersion: batch/v1
kind: CronJob
metadata:
   name: test
   namespace: qual
   generation: 1
status:
""",
        "Current",
        id="TestCronJobStatus/cronjobWithStatus",
    ),
    # status_compute_test.go, TestServiceStatus
    pytest.param(
        """
apiVersion: v1
kind: Service
metadata:
   name: test
   namespace: qual
   generation: 1
""",
        "Current",
        id="TestServiceStatus/serviceDefault",
    ),
    pytest.param(
        """
apiVersion: v1
kind: Service
metadata:
   name: test
   namespace: qual
   generation: 1
spec:
  type: NodePort
""",
        "Current",
        id="TestServiceStatus/serviceNodePort",
    ),
    pytest.param(
        """
apiVersion: v1
kind: Service
metadata:
   name: test
   namespace: qual
   generation: 1
spec:
  type: LoadBalancer
""",
        "InProgress",
        id="TestServiceStatus/serviceLBnok",
    ),
    # status_compute_test.go, TestCRDStatus
    pytest.param(
        """
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
   generation: 1
""",
        "InProgress",
        id="TestCRDStatus/crdNoConditions",
    ),
    pytest.param(
        """
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
   generation: 1
status:
   conditions:
    - type: NamesAccepted
      status: "True"
      reason: NoConflicts
    - type: Established
      status: "False"
      reason: Installing
""",
        "InProgress",
        id="TestCRDStatus/crdInstalling",
    ),
    pytest.param(
        """
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
   generation: 1
status:
   conditions:
    - type: NamesAccepted
      status: "False"
      reason: SomeReason
""",
        "Failed",
        id="TestCRDStatus/crdNamesNotAccepted",
    ),
    pytest.param(
        """
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
   generation: 1
status:
   conditions:
    - type: NamesAccepted
      status: "True"
      reason: NoConflicts
    - type: Established
      status: "True"
      reason: InitialNamesAccepted
""",
        "Current",
        id="TestCRDStatus/crdEstablished",
    ),
    # core_test.go: suspended Jobs
    pytest.param(
        """
apiVersion: batch/v1
kind: Job
metadata:
   name: test
   generation: 1
   namespace: qual
spec:
  suspend: true
status:
  conditions:
  - type: Suspended
    status: "True"
""",
        "Current",
        id="TestSuspendedJobConditions",
    ),
    pytest.param(
        """
apiVersion: batch/v1
kind: Job
metadata:
   name: test
   generation: 1
   namespace: qual
spec:
  suspend: false
status:
  conditions:
  - type: Suspended
    status: "False"
""",
        "InProgress",
        id="TestPreviouslySuspendedJobConditions",
    ),
    pytest.param(
        """
apiVersion: batch/v1
kind: Job
metadata:
   name: test
   generation: 1
   namespace: qual
spec:
  suspend: true
status:
  conditions:
  - type: Suspended
    status: "False"
""",
        "InProgress",
        id="TestSuspendedJobTransitionConditions/toSuspendedState",
    ),
    pytest.param(
        """
apiVersion: batch/v1
kind: Job
metadata:
   name: test
   generation: 1
   namespace: qual
spec:
  suspend: false
status:
  conditions:
  - type: Suspended
    status: "True"
""",
        "InProgress",
        id="TestSuspendedJobTransitionConditions/fromSuspendedState",
    ),
    # example_test.go (TestExampleAugment uses the same manifest and adds no condition: Current too)
    pytest.param(
        DEPLOYMENT_OK,
        "Current",
        id="TestExampleCompute",
    ),
    # status_augment_test.go: Augment adds Reconciling for InProgress, Stalled for Failed, nothing for Current
    pytest.param(
        """
apiVersion: v1
kind: Pod
metadata:
   generation: 1
   name: test
   namespace: qual
status:
   phase: Running
""",
        "InProgress",
        id="TestAugmentConditions/no existing conditions",
    ),
    pytest.param(
        """
apiVersion: v1
kind: Pod
metadata:
   generation: 1
   name: test
   namespace: qual
status:
   phase: Running
   conditions:
    - lastTransitionTime: "2019-06-04T01:16:13Z"
      lastUpdateTime: "2019-06-04T01:16:13Z"
      type: Ready
      status: "False"
      reason: Pod has not started
""",
        "InProgress",
        id="TestAugmentConditions/has other existing conditions",
    ),
    pytest.param(
        """
apiVersion: v1
kind: Pod
metadata:
   generation: 1
   name: test
   namespace: qual
status:
   phase: Running
   conditions:
    - lastTransitionTime: "2019-06-04T01:16:13Z"
      lastUpdateTime: "2019-06-04T01:16:13Z"
      type: Reconciling
      status: "True"
      reason: PodIsAbsolutelyNotReady
""",
        "InProgress",
        id="TestAugmentConditions/already has condition of standard type InProgress",
    ),
    pytest.param(
        """
apiVersion: v1
kind: Pod
metadata:
   generation: 1
   name: test
   namespace: qual
status:
   phase: Running
   conditions:
    - lastTransitionTime: "2019-06-04T01:16:13Z"
      lastUpdateTime: "2019-06-04T01:16:13Z"
      type: Stalled
      status: "True"
      reason: PodHasFailed
""",
        "Failed",
        id="TestAugmentConditions/already has condition of standard type Failed",
    ),
    pytest.param(
        """
apiVersion: v1beta1
kind: SomeCustomKind
metadata:
   generation: 1
   name: test
   namespace: default
""",
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
        """
apiVersion: v1
kind: Pod
metadata:
   generation: 1
   name: test
   namespace: qual
status:
   phase: Failed
   conditions:
    - type: Ready
      status: "False"
      reason: PodCompleted
""",
        "Current",
        "Failed",
        POD_FAILED,
        id="TestPodStatus/podCompletedFailed",
    ),
    pytest.param(
        """
apiVersion: v1
kind: Service
metadata:
   name: test
   namespace: qual
   generation: 1
spec:
  type: LoadBalancer
  clusterIP: "1.2.3.4"
""",
        "Current",
        "InProgress",
        LOAD_BALANCER,
        id="TestServiceStatus/serviceLBok",
    ),
]


@pytest.mark.parametrize(("manifest", "kstatus"), AGREED)
def test_health_agrees_with_kstatus(manifest: str, kstatus: str) -> None:
    assert judge(manifest) == kstatus


@pytest.mark.parametrize(("manifest", "kstatus", "stencil", "reason"), DEPARTURES)
def test_health_departs_from_kstatus_only_on_purpose(
    manifest: str, kstatus: str, stencil: str, reason: str
) -> None:
    assert judge(manifest) == stencil != kstatus


@pytest.mark.parametrize(("manifest", "kstatus", "stencil", "reason"), DEPARTURES)
def test_health_departure_is_documented_with_its_reason(
    manifest: str, kstatus: str, stencil: str, reason: str
) -> None:
    documented = " ".join(DOCS.read_text(encoding="utf-8").split())

    assert reason in documented
