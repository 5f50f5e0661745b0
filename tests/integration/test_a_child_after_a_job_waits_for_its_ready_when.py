"""``readyWhen`` on a real control plane: a ConfigMap that waits (``after:``) for a Job whose
readyWhen asks for a succeeded pod is not created while the Job runs, though kstatus calls a
running Job Current; the Widget names the rule it waits for; once kwok completes the Job's pod,
the ConfigMap is created, no earlier than the Job completed, and the Widget is Ready.

The Job runs while no node takes its pod (the nodes are cordoned): the Job controller has started
it (``startTime``, one active), which is all kstatus asks of a Job."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine.core.decisions import health
from engine.runtime.cluster.kube import Kube, Resource
from engine.tools import manifests
from tests.integration._engine import condition_is, conditions, eventually, running_engine
from tests.integration._widgets import widget, write_kind

pytestmark = pytest.mark.nodes

TEMPLATES = """\
templates:
  - file: job.yaml
    id: migrate
    readyWhen: child.status.succeeded >= 1
  - {file: config.yaml, after: [migrate]}
"""
JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: {{ name }}-migrate
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: migrate
          image: busybox:1.36
"""
CONFIG = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ name }}-config
data:
  migrated: "yes"
"""
RULE_LINE = 9  # the readyWhen line: five of the Widget's kind.yaml, then the templates list


def test_the_configmap_is_created_only_once_the_job_has_succeeded(
    kube: Kube, namespace: str, widgets: Resource, tmp_path: Path, cordoned: list[str]
) -> None:
    jobs, configmaps = kube.resource("batch/v1", "Job"), kube.resource("v1", "ConfigMap")
    templates = write_kind(tmp_path / "templates", {"job.yaml": JOB, "config.yaml": CONFIG}, TEMPLATES)

    def running_job() -> dict[str, Any] | None:
        job = kube.get(jobs, "w-migrate", namespace)
        return job if job and (job.get("status") or {}).get("active") else None

    with running_engine(kube, templates, namespace):
        manifests.apply_all(kube, [widget("w")], namespace)

        # The Job runs (its pod cannot start): Current for kstatus, not ready for its rule.
        job = eventually(running_job, what="the Job to run")
        assert health.assess(job).status == health.CURRENT
        message = eventually(
            lambda: (
                "NotReady"
                in (ready := conditions(kube.get(widgets, "w", namespace)).get("Ready") or {}).get(
                    "message", ""
                )
                and ready["message"]
            ),
            what="the Widget to say the ConfigMap waits for the Job's rule",
        )
        assert (
            "config waits for migrate (NotReady: readyWhen 'child.status.succeeded >= 1' does not hold "
            f"({templates / 'widget' / 'kind.yaml'}:{RULE_LINE}))"
        ) in message, message
        assert kube.get(configmaps, "w-config", namespace) is None

        # The pod may start: kwok completes a Job's pod, the Job succeeds, the ConfigMap follows.
        nodes = kube.resource("v1", "Node")
        for name in cordoned:
            kube.patch_json(nodes, name, None, [{"op": "add", "path": "/spec/unschedulable", "value": False}])
        config = eventually(
            lambda: kube.get(configmaps, "w-config", namespace), timeout=120, what="the ConfigMap"
        )
        done = kube.get(jobs, "w-migrate", namespace)
        assert done is not None and (done.get("status") or {}).get("succeeded", 0) >= 1
        # Timestamps have whole seconds: created in the second the Job completed, or later.
        assert config["metadata"]["creationTimestamp"] >= done["status"]["completionTime"]
        eventually(condition_is(kube, widgets, "w", namespace, "Ready", "True"), what="Ready")
