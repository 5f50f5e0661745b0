"""An engine killed (SIGKILL) in the middle of a rollout of 200 parents resumes where it was:
the revisions it kept in the cluster give the same numbers to the restarted engine, the
parents not yet moved stay at revision 1 until their wave, no parent moves twice (each records
one move: one ``kindRevision`` at 2, one time) and none is skipped, and the bound holds across
the restart."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.runtime.cluster.kube import Kube
from tests.integration import _rollouts as r
from tests.integration._engine import eventually
from tests.integration._process import engine_process

KIND = "network-killed"


def test_an_engine_killed_mid_rollout_resumes_where_it_was(
    kube: Kube, namespace: str, crds_installed: list[str], tmp_path: Path, local_cluster: Any
) -> None:
    networks = kube.resource("samplecrd.k8s.io/v1", "Network")
    folder = r.network_kind(tmp_path / "kinds", KIND)
    args = (
        "--templates",
        str(tmp_path / "kinds"),
        "--namespace",
        namespace,
        "--revisions-namespace",
        namespace,
    )
    try:
        with engine_process(local_cluster.kubeconfig, tmp_path / "first.log", *args) as first:
            r.create_networks(kube, networks, namespace)
            r.all_at(kube, networks, namespace, 1)
            with r.sampling(kube, networks, namespace, target=2) as watch:
                r.change(folder, "  cidr: {{ spec.cidr }}", '  cidr: {{ spec.cidr }}\n  wave: "2"')
                eventually(
                    lambda: watch.samples and 40 <= watch.samples[-1][2] < 120, what="a rollout half way"
                )
                first.kill()
                items, _ = kube.list(networks, namespace)
                at_kill = {p["metadata"]["name"]: r.revision_of(p) for p in items}
                assert 0 < sum(n == 2 for n in at_kill.values()) < r.PARENTS
                with engine_process(local_cluster.kubeconfig, tmp_path / "second.log", *args) as second:
                    r.all_at(kube, networks, namespace, 2, timeout=180)
                    assert "revision 3" not in second.output()  # the same files: the same revision 2
    finally:
        r.delete_kind_rollout(kube, KIND)

    assert watch.most_moving <= 20, watch.samples
    moved = {name: sorted(n for n, _ in seen if n is not None) for name, seen in watch.records.items()}
    assert len(moved) == r.PARENTS
    twice = {name: seen for name, seen in watch.records.items() if sum(n == 2 for n, _ in seen) != 1}
    assert not twice, twice  # one record of revision 2 each: moved once, at one time
    assert all(c["data"].get("wave") == "2" for c in r.configmaps(kube, namespace).values())
    print(f"\nkilled with {sum(n == 2 for n in at_kill.values())} of 200 parents at revision 2; resumed")
