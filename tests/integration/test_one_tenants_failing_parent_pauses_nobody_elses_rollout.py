"""One tenant's parent that fails to render on a kind's new revision pauses nobody else's rollout:
it is counted as failed, its children stay as they were, and the other tenant's parents move to
the new revision within seconds; the KindRollout and its Events say counts only, never the
failing parent or its error, which are said on the parent, in its own namespace.  Once a second
namespace's parent fails (past the default budget of one namespace) the rollout pauses."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.runtime.cluster.kube import Kube
from tests.integration import _rollouts as r
from tests.integration._engine import conditions, eventually, running_engine

KIND = "network-tenants"
BAD = "net-bad"  # a name only the failing parents have: its error quotes nothing else
ERROR = "spec.zone: not set"  # what the failing parent's error says
BREAK = '  zone: {{ spec.zone.name if name == "net-bad" else "none" }}'


def _network(kube: Kube, namespace: str, name: str) -> None:
    body = {"cidr": "10.1.0.0/24", "gateway": "10.1.0.1"}
    kube.create(
        {
            "apiVersion": "samplecrd.k8s.io/v1",
            "kind": "Network",
            "metadata": {"name": name, "namespace": namespace},
            "spec": body,
        }
    )


def _quoting(kube: Kube, namespace: str) -> list[tuple[str, Any]]:
    events, _ = kube.list(kube.resource("v1", "Event"), namespace)
    said = [(e.get("message", ""), e["involvedObject"].get("name")) for e in events]
    return [s for s in said if BAD in s[0] or ERROR in s[0] or s[1] == BAD]


def test_one_tenants_failing_parent_pauses_nobody_elses_rollout(
    kube: Kube, namespace: str, other_namespace: str, crds_installed: list[str], tmp_path: Path
) -> None:
    tenant_a, tenant_b = namespace, other_namespace
    networks = kube.resource("samplecrd.k8s.io/v1", "Network")
    folder = r.network_kind(tmp_path / "kinds", KIND)
    watched = (tenant_a, tenant_b)
    try:
        with running_engine(
            kube, tmp_path / "kinds", None, namespaces=watched, revisions_namespace=tenant_a, workers=2
        ):
            _network(kube, tenant_a, BAD)
            for name in ("net-000", "net-001"):
                _network(kube, tenant_b, name)

            def at(namespace: str, name: str, revision: int) -> bool:
                found = kube.get(networks, name, namespace)
                return found is not None and r.revision_of(found) == revision and r.ready(found)

            eventually(lambda: all(at(ns, n, 1) for ns, n in ((tenant_a, BAD), (tenant_b, "net-001"))))
            before = r.configmaps(kube, tenant_a)[f"{BAD}-network"]["metadata"]["resourceVersion"]

            r.change(folder, "  cidr: {{ spec.cidr }}", "  cidr: {{ spec.cidr }}\n" + BREAK)
            eventually(
                lambda: at(tenant_b, "net-000", 2) and at(tenant_b, "net-001", 2),
                what="the other tenant's parents Ready at revision 2",
            )
            said = eventually(
                lambda: (
                    ((r.kind_rollout(kube, KIND) or {}).get("status") or {}).get("failedParents") == 1
                    and r.kind_rollout(kube, KIND)
                ),
                what="the rollout counting the failed parent",
            )
            assert not said["spec"].get("paused"), said
            assert said["status"]["failedNamespaces"] == 1 and "failure" not in said["status"]
            assert BAD not in repr(said) and ERROR not in repr(said)
            bad = kube.get(networks, BAD, tenant_a)
            assert bad is not None and conditions(bad)["TemplatesRendered"]["status"] == "False"
            assert r.configmaps(kube, tenant_a)[f"{BAD}-network"]["metadata"]["resourceVersion"] == before
            # Said on the parent, in its own namespace; nowhere else.
            eventually(lambda: _quoting(kube, tenant_a), what="an Event on the failing parent")
            assert _quoting(kube, "default") == [] and _quoting(kube, tenant_b) == []

            # A failing parent in a second namespace is past the default budget: it pauses.
            _network(kube, tenant_b, BAD)
            paused = eventually(
                lambda: (
                    ((r.kind_rollout(kube, KIND) or {}).get("status") or {}).get("failure")
                    and r.kind_rollout(kube, KIND)
                ),
                what="the rollout paused past its budget",
            )
            assert paused["spec"].get("paused") is True
            assert paused["status"]["failedNamespaces"] == 2
            assert paused["status"]["failure"]["reason"] == "RenderFailed"
            assert BAD not in repr(paused["status"]) and ERROR not in repr(paused["status"])
            rollout_events = [
                e
                for e in kube.list(kube.resource("v1", "Event"), "default")[0]
                if e["involvedObject"].get("name") == KIND
            ]
            assert any(e["reason"] == "RolloutPaused" for e in rollout_events)
            assert _quoting(kube, "default") == []
    finally:
        r.delete_kind_rollout(kube, KIND)
