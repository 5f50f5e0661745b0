"""The chart's API Priority and Fairness objects work on a real API server: it accepts the
PriorityLevelConfiguration and FlowSchema `helm template` renders, finds the level the
schema names (condition Dangling=False), and classifies the chart's ServiceAccount's
requests, resource and non-resource alike, into that schema rather than the built-in
`service-accounts` one, as its own metrics show.

The objects are applied, not installed with the chart: only they are under test, and
being cluster-scoped they are deleted here, whatever the test did.
"""

from __future__ import annotations

import contextlib
import uuid
from typing import Any

import yaml

from engine.core.model import errors
from engine.runtime.cluster.kube import Kube
from tests.integration._engine import eventually
from tests.integration._process import CHART, helm, samples

DISPATCHED = "apiserver_flowcontrol_dispatched_requests_total"


def test_flow_schema_is_accepted_resolves_its_level_and_takes_the_service_accounts_requests(
    kube: Kube, namespace: str, local_cluster: Any
) -> None:
    release = f"stencil-{uuid.uuid4().hex[:6]}"
    rendered = helm(local_cluster.kubeconfig, "template", release, str(CHART), "--namespace", namespace,
                    "--set", "flowControl.enabled=true")  # fmt: skip
    documents = [d for d in yaml.load_all(rendered, Loader=yaml.CSafeLoader) if d]
    (level,) = (d for d in documents if d["kind"] == "PriorityLevelConfiguration")
    (schema,) = (d for d in documents if d["kind"] == "FlowSchema")
    (account,) = (d for d in documents if d["kind"] == "ServiceAccount")
    name = schema["metadata"]["name"]
    levels = kube.resource(level["apiVersion"], level["kind"])
    schemas = kube.resource(schema["apiVersion"], schema["kind"])
    assert not levels.namespaced and not schemas.namespaced

    try:
        kube.apply({**account, "metadata": {**account["metadata"], "namespace": namespace}})
        kube.apply(level)
        kube.apply(schema)

        def dangling_false() -> bool:
            found = kube.get(schemas, name) or {}
            return any(
                c["type"] == "Dangling" and c["status"] == "False"
                for c in found.get("status", {}).get("conditions", [])
            )

        eventually(dangling_false, what=f"FlowSchema {name} to report Dangling=False")

        # The API server's flow control sees the impersonated user, so these are the
        # ServiceAccount's requests: /version is non-resource; the ConfigMap list is a
        # resource request, refused (no RBAC here) only after flow control dispatched it.
        as_engine = kube.impersonating(f"system:serviceaccount:{namespace}:{account['metadata']['name']}")

        def dispatched() -> float:
            return sum(samples(kube.metrics(), DISPATCHED, flow_schema=name, priority_level=name))

        def two_requests() -> None:
            as_engine.request("GET", "/version")
            with contextlib.suppress(errors.ApiError):
                as_engine.request("GET", f"/api/v1/namespaces/{namespace}/configmaps")

        def some_dispatched() -> float:
            two_requests()
            return dispatched()

        before = eventually(some_dispatched, what=f"requests dispatched through FlowSchema {name}")
        two_requests()
        assert dispatched() == before + 2, "both kinds of request go through the chart's FlowSchema"
    finally:
        for res, obj_name in ((schemas, name), (levels, level["metadata"]["name"])):
            kube.delete(res, obj_name)
