"""A kind that creates a Namespace (cluster-scoped: no owner reference, routed by its labels)
and then, ``after`` it, a ResourceQuota inside it: every parent gets both, at once.

A Namespace is Active from its creation and never changes again, so the only watch event
it sends is the one for the create, which carries the version the engine already cached
from the create's answer.  A parent that had decided its quota waits must not depend on
that event; here 8 parents are created at once, 20 times in a row, and none may be left
at ``resourcequota waits for namespace (not created yet)``."""

from __future__ import annotations

import uuid
from pathlib import Path

from engine.runtime.cluster.kube import Kube, Resource
from engine.tools import manifests
from tests.integration._engine import conditions, eventually, running_engine
from tests.integration._widgets import widget, write_kind

NAMESPACE_TEMPLATE = """\
apiVersion: v1
kind: Namespace
metadata:
  name: {{ spec.tenant }}
"""
QUOTA_TEMPLATE = """\
apiVersion: v1
kind: ResourceQuota
metadata:
  name: {{ name }}-quota
  namespace: {{ spec.tenant }}
spec:
  hard:
    pods: "10"
"""
KIND_YAML = """\
placement:
  clusterScoped: true
  namespaces: ["*"]
templates:
  - namespace.yaml
  - {file: resourcequota.yaml, after: [namespace]}
"""
PARENTS = 8
ROUNDS = 20


def test_eight_parents_twenty_times_each_get_their_quota(
    kube: Kube, namespace: str, widgets: Resource, tmp_path: Path
) -> None:
    templates = write_kind(
        tmp_path / "templates",
        {"namespace.yaml": NAMESPACE_TEMPLATE, "resourcequota.yaml": QUOTA_TEMPLATE},
        KIND_YAML,
    )
    quotas = kube.resource("v1", "ResourceQuota")
    stuck: list[str] = []
    # The engine watches every namespace here: the quota lives in the namespace it creates.
    with running_engine(kube, templates, None, workers=4):
        for round_ in range(ROUNDS):
            tenants = {f"w{round_}-{i}": f"t-{uuid.uuid4().hex[:10]}" for i in range(PARENTS)}
            manifests.apply_all(
                kube, [widget(name, tenant=tenant) for name, tenant in tenants.items()], namespace
            )

            def all_ready(tenants: dict[str, str] = tenants) -> bool:
                return all(
                    conditions(kube.get(widgets, name, namespace)).get("Ready", {}).get("status") == "True"
                    for name in tenants
                )

            try:
                eventually(all_ready, what=f"round {round_}: every parent Ready")
            except AssertionError:
                for name in tenants:
                    ready = conditions(kube.get(widgets, name, namespace)).get("Ready", {})
                    if ready.get("status") != "True":
                        stuck.append(f"round {round_} {name}: {ready.get('message')}")
            for name, tenant in tenants.items():
                if kube.get(quotas, f"{name}-quota", tenant) is None:
                    stuck.append(f"round {round_} {name}: no quota in {tenant}")
            for name in tenants:
                kube.delete(widgets, name, namespace)

            def all_gone(tenants: dict[str, str] = tenants) -> bool:
                return all(kube.get(widgets, name, namespace) is None for name in tenants)

            eventually(all_gone, what=f"round {round_}: the parents deleted with their children")
    assert not stuck, "\n".join(stuck)
