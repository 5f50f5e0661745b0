"""A status field whose rule stops yielding is removed at the server, and then nothing is written.

A status field appears, then its rule yields nothing: the field is gone, and the next 30 s
bring zero writes for that parent, counted by the API server itself
(``apiserver_request_total``).

A write that cannot remove the field (a merge patch naming only what the rule still
yields) leaves the server's status different from the derived one, so every reconcile
would write again, and every write wakes the parent once more.  While this test runs,
only its engine creates, patches or applies Widgets and ConfigMaps, so the server's counts
for those resources are this parent's (``parent_writes`` says what else it leaves out);
its Events are read from its namespace.
"""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path
from typing import Any

from engine.runtime.cluster.kube import Kube, Resource
from engine.testing import write_requests
from engine.tools import manifests
from tests.integration._engine import conditions, eventually, running_engine
from tests.integration._widgets import VALUE_CONFIGMAP, widget, write_kind

QUIET = 30.0  # seconds of observation after the field is gone
COUNTED_VERBS = ("POST", "PUT", "PATCH", "APPLY")


STATUS_RULES = """\
status:
  fields:
    flag: "'on' if spec.flag else none"
"""


def parent_writes(kube: Kube) -> Counter[str]:
    """Write requests to Widgets (status included) and ConfigMaps the API server has counted,
    cluster-wide.

    Left out: deletions (the namespaces of earlier tests may still be being emptied, and the
    engine deletes nothing here: no ``deleteWhen``, nothing to prune) and requests refused
    with 403 (the root CA publisher recreating ``kube-root-ca.crt`` in such a namespace; the
    engine here is a cluster admin).
    """
    counted: Counter[str] = Counter()
    for key, count in write_requests(kube, refused=False).items():
        verb, resource = key.split(" ")
        if verb in COUNTED_VERBS and resource.split("/")[0] in ("widgets", "configmaps"):
            counted[key] = count
    return counted


def events(kube: Kube, namespace: str) -> dict[str, str]:
    """The Events of the test's namespace (only its parent has any), by name, with their versions.
    Counted here rather than at the server, where other components' Events are counted too."""
    found = kube.request("GET", f"/api/v1/namespaces/{namespace}/events")["items"]
    return {e["metadata"]["name"]: e["metadata"]["resourceVersion"] for e in found}


def settled(kube: Kube, widgets: Resource, namespace: str, flag: str | None) -> Any:
    """The parent once its status shows ``flag`` (None: no such field) and Ready at its generation."""
    obj = kube.get(widgets, "flagged", namespace)
    if obj is None:
        return None
    status = obj.get("status") or {}
    ready = conditions(obj).get("Ready", {})
    generation = obj["metadata"]["generation"]
    if (
        status.get("flag") == flag
        and ("flag" in status) == (flag is not None)
        and status.get("observedGeneration") == generation
        and ready.get("status") == "True"
        and ready.get("observedGeneration") == generation
    ):
        return obj
    return None


def test_status_field_removed_when_its_rule_yields_nothing(
    kube: Kube, namespace: str, widgets: Resource, tmp_path: Path
) -> None:
    templates = write_kind(tmp_path / "templates", {"configmap.yaml": VALUE_CONFIGMAP}, STATUS_RULES)
    with running_engine(kube, templates, namespace, resync=600) as engine:
        manifests.apply_all(kube, [widget("flagged", value="v", flag=True)], namespace)
        eventually(lambda: settled(kube, widgets, namespace, "on"), what="status.flag 'on' and Ready")

        manifests.apply_all(kube, [widget("flagged", value="v", flag=False)], namespace)
        parent = eventually(
            lambda: settled(kube, widgets, namespace, None),
            what="status.flag gone at the server, Ready at the new generation",
        )
        assert "flag" not in parent["status"]

        before = parent_writes(kube)
        # The count is live: the status writes so far were counted (so a zero below means something).
        assert before["PATCH widgets/status"] >= 2
        events_before = events(kube, namespace)
        engine_before = dict(engine.counters)
        time.sleep(QUIET)  # the observation window
        assert parent_writes(kube) - before == Counter()
        assert events(kube, namespace) == events_before
        assert engine.counters == engine_before
        after = kube.get(widgets, "flagged", namespace)
        assert after is not None and after["metadata"] == parent["metadata"]
