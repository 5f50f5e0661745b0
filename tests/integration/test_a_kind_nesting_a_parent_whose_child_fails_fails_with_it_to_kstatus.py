"""A kind whose child is another kind's parent reads an inner failure as a failure: a stack that
renders a DeployWebService whose Deployment passes its progress deadline says ``ChildFailed`` with
the inner parent's words and reads Failed to kstatus, where it said ``ChildrenNotReady`` and
waited."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.runtime.cluster.kube import Kube, Resource
from engine.tools import manifests
from tests.integration import _clients as c
from tests.integration import _rollouts as r
from tests.integration._engine import conditions, cordon, running_engine
from tests.integration._widgets import widget, write_kind

pytestmark = pytest.mark.nodes

STACK = """\
apiVersion: operator.wujiuye.com/v1beta1
kind: DeployWebService
metadata:
  name: {{ name }}-web
spec:
  image: nginx:1.27
  replicas: 1
  exposed_port: 8080
"""


def test_a_stack_whose_inner_parent_stalls_reads_failed(
    kube: Kube, namespace: str, dws: Resource, widgets: Resource, tmp_path: Path
) -> None:
    templates = tmp_path / "templates"
    inner = c.shipped_kind(templates)
    r.change(
        inner, "spec:\n  replicas:", "spec:\n  progressDeadlineSeconds: 5\n  replicas:", "deployment.yaml"
    )
    write_kind(templates, {"stack.yaml": STACK})
    with cordon(kube), running_engine(kube, templates, namespace):
        manifests.apply_all(kube, [widget("w")], namespace)

        c.eventually_kstatus(kube, dws, "w-web", namespace, "Failed")
        outer = c.eventually_kstatus(kube, widgets, "w", namespace, "Failed")

    found = conditions(outer)
    assert found["ChildrenReady"]["reason"] == "ChildFailed", found
    assert "w-web" in found["ChildrenReady"]["message"], found["ChildrenReady"]
    assert found["Stalled"]["status"] == "True", found
