"""What lint calls an error between a child's parts, the API server refuses; what it lets by, it takes.

A workload whose selector does not select its own pod template, and a container
mounting a volume its pod does not declare, are each checked offline by
``relations.problems`` and sent to a real kube-apiserver as a server-side apply
dry run; the two verdicts must agree.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from engine.core.offline.linting import relations
from engine.runtime.cluster.kube import Kube
from tests.integration.test_offline_child_check_agrees_with_the_api_server import server_refuses
from tests.unit._schema_children import container, deployment, job, statefulset

Child = dict[str, Any]


def selecting(child: Child, **match_labels: str) -> Child:
    changed = copy.deepcopy(child)
    changed["spec"]["selector"] = {"matchLabels": match_labels}
    return changed


def expressions(child: Child, *requirements: dict[str, Any]) -> Child:
    changed = copy.deepcopy(child)
    changed["spec"]["selector"] = {"matchExpressions": list(requirements)}
    return changed


def labelled(child: Child, **labels: str) -> Child:
    changed = copy.deepcopy(child)
    changed["spec"]["template"].setdefault("metadata", {})["labels"] = labels
    return changed


def claiming(child: Child) -> Child:
    """A StatefulSet whose container mounts ``data``, a volume of its pods by its claim template."""
    changed = copy.deepcopy(child)
    changed["spec"]["template"]["spec"]["containers"] = [
        container(volumeMounts=[{"name": "data", "mountPath": "/data"}])
    ]
    claim = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}
    changed["spec"]["volumeClaimTemplates"] = [{"metadata": {"name": "data"}, "spec": claim}]
    return changed


MOUNTING = [container(volumeMounts=[{"name": "cache", "mountPath": "/cache"}])]
CASES = {
    "a deployment selecting its pods": deployment(),
    "a deployment selecting other labels": selecting(deployment(), app="web"),
    "a deployment selecting a subset of its labels": selecting(
        labelled(deployment(), app="shop", tier="web"), app="shop"
    ),
    "a deployment selecting by an expression its pods meet": expressions(
        deployment(), {"key": "app", "operator": "In", "values": ["shop", "web"]}
    ),
    "a deployment selecting by an expression its pods fail": expressions(
        deployment(), {"key": "app", "operator": "NotIn", "values": ["shop"]}
    ),
    "a statefulset selecting other labels": selecting(statefulset(), app="web"),
    "a job with a manual selector its pods fail": selecting(
        labelled(job(manualSelector=True), app="migrate"), app="other"
    ),
    "a job with a manual selector its pods meet": selecting(
        labelled(job(manualSelector=True), app="migrate"), app="migrate"
    ),
    "a mount of a volume its pod declares": deployment(
        containers=MOUNTING, volumes=[{"name": "cache", "emptyDir": {}}]
    ),
    "a mount of no volume of its pod": deployment(containers=MOUNTING),
    "a statefulset mount of its claim template": claiming(statefulset()),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_lint_errors_are_the_servers_refusals(kube: Kube, namespace: str, case: str) -> None:
    child = copy.deepcopy(CASES[case])
    child["metadata"]["namespace"] = namespace
    found = [problem for _, problem in relations.problems([child]) if problem.severity == "error"]

    assert bool(found) == server_refuses(kube, child), [str(p) for p in found]
