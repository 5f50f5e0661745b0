"""After the API server was away for 45 s, the engine is back at work within 10 s of its return.

Connection failures are nobody's fault but the server's absence: the informers and the
work queue retry them at a steady second's pace.  A backoff grown through the outage
would leave the engine idle for half a minute or more after the server is back; here a
parent that was failing when the server went away (its child's namespace did not exist
yet) is retried throughout, and converges within seconds once the namespace is there.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.core.model import errors
from engine.localcluster import LocalCluster
from engine.runtime.cluster.kube import Kube
from engine.tools import manifests
from tests._deadlines import eventually
from tests.integration._engine import ROOT, condition_is, running_engine
from tests.integration._widgets import widget, write_kind

OUTAGE = 45.0
RESUME_WITHIN = 10.0
LATER = "made-after-the-outage"

TEMPLATE = f"""\
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{{{ name }}}}-data
  namespace: {LATER}
data:
  value: "{{{{ spec.value }}}}"
"""
PLACEMENT = f"placement:\n  namespaces: [{LATER}]\n"


@pytest.fixture
def cluster() -> Iterator[LocalCluster]:
    """A cluster of its own: this test takes its API server away."""
    with LocalCluster() as own:
        yield own


def create_namespace(kube: Kube) -> bool:
    """Create the namespace; False while the server still answers 429 as its storage warms up."""
    try:
        kube.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": LATER}})
    except errors.ApiError as error:
        if error.status != 429:
            raise
        return False
    return True


def test_a_parent_failing_through_a_45_second_outage_converges_within_seconds_of_the_return(
    cluster: LocalCluster, tmp_path: Path, connect: Any
) -> None:
    kube = connect(cluster.kubeconfig)
    manifests.install_crds(kube, ROOT / "tests" / "integration" / "fixtures")
    templates = write_kind(tmp_path / "templates", {"configmap.yaml": TEMPLATE}, PLACEMENT)
    widgets = kube.resource("tests.stencil.dev/v1", "Widget")
    configmaps = kube.resource("v1", "ConfigMap")
    with running_engine(kube, templates, None, resync=600):
        manifests.apply_all(kube, [widget("w", value="1")], "default")
        eventually(
            condition_is(kube, widgets, "w", "default", "ChildrenApplied", "False"),
            what="the apply failing: the child's namespace does not exist yet",
        )

        cluster.stop_apiserver(graceful=False)
        time.sleep(OUTAGE)  # the outage itself, not a wait for something to happen
        cluster.start_apiserver()
        back = time.monotonic()

        eventually(lambda: create_namespace(kube), timeout=RESUME_WITHIN, what="the namespace created")
        eventually(
            lambda: kube.get(configmaps, "w-data", LATER),
            timeout=RESUME_WITHIN,
            interval=0.1,
            what=f"the child within {RESUME_WITHIN:.0f} s of the server's return",
        )
        print(f"converged {time.monotonic() - back:.1f} s after the API server was ready again")
