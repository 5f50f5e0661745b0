"""A kind with a rollout whose folder no longer loads (a field kind.yaml does not have) touches
no parent: their resourceVersions stay as they were, their children too; the KindRollout says
InvalidKind at the field's line, with an Event.  Once the folder is mended it rolls out."""

from __future__ import annotations

import time
from pathlib import Path

from engine.runtime.cluster.kube import Kube
from tests.integration import _rollouts as r
from tests.integration._engine import eventually, running_engine

KIND = "network-broken"


def _versions(kube: Kube, namespace: str) -> dict[str, str]:
    parents, _ = kube.list(kube.resource("samplecrd.k8s.io/v1", "Network"), namespace)
    return {p["metadata"]["name"]: p["metadata"]["resourceVersion"] for p in parents} | {
        name: c["metadata"]["resourceVersion"] for name, c in r.configmaps(kube, namespace).items()
    }


def _reason(kube: Kube) -> str:
    said = (r.kind_rollout(kube, KIND) or {}).get("status") or {}
    return next((c["reason"] for c in said.get("conditions") or () if c["type"] == "Ready"), "")


def test_a_kind_folder_that_no_longer_loads_stops_its_rollout_not_its_parents(
    kube: Kube, namespace: str, crds_installed: list[str], tmp_path: Path
) -> None:
    networks = kube.resource("samplecrd.k8s.io/v1", "Network")
    folder = r.network_kind(tmp_path, KIND)
    try:
        with running_engine(kube, tmp_path, namespace, revisions_namespace=namespace):
            r.create_networks(kube, networks, namespace, count=r.PARENTS)
            r.all_at(kube, networks, namespace, 1)
            before = _versions(kube, namespace)

            kind_yaml = (folder / "kind.yaml").read_text()
            (folder / "kind.yaml").write_text(kind_yaml + "bogus: true\n")
            eventually(lambda: _reason(kube) == "InvalidKind", what="the KindRollout saying InvalidKind")
            time.sleep(2)
            assert _versions(kube, namespace) == before  # no parent, no child written
            ready = next(
                c for c in r.kind_rollout(kube, KIND)["status"]["conditions"] if c["type"] == "Ready"
            )
            line = kind_yaml.count("\n") + 1
            assert f"kind.yaml:{line}" in ready["message"] and "bogus" in ready["message"], ready
            events, _ = kube.list(kube.resource("v1", "Event"), "default")
            assert any(e["reason"] == "InvalidKind" and e["involvedObject"]["name"] == KIND for e in events)

            (folder / "kind.yaml").write_text(kind_yaml)
            r.change(folder, "  cidr: {{ spec.cidr }}", '  cidr: {{ spec.cidr }}\n  mended: "yes"')
            r.all_at(kube, networks, namespace, 2, timeout=180)
            assert all(c["data"]["mended"] == "yes" for c in r.configmaps(kube, namespace).values())
    finally:
        r.delete_kind_rollout(kube, KIND)
