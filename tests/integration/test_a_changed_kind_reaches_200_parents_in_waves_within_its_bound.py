"""A good change of a kind with ``rollout: {maxUnavailable: 10%}`` reaches its 200 parents in
waves: never more than 20 moved and not Ready at once, every parent at the new revision in the
end, and the KindRollout says so.  The in-flight count over time is printed (``-s``)."""

from __future__ import annotations

import time
from pathlib import Path

from engine.runtime.cluster.kube import Kube
from tests.integration import _rollouts as r
from tests.integration._engine import eventually, running_engine

KIND = "network-waves"


def test_a_changed_kind_reaches_200_parents_in_waves_within_its_bound(
    kube: Kube, namespace: str, crds_installed: list[str], tmp_path: Path
) -> None:
    networks = kube.resource("samplecrd.k8s.io/v1", "Network")
    folder = r.network_kind(tmp_path, KIND)
    try:
        with running_engine(kube, tmp_path, namespace, revisions_namespace=namespace, workers=4):
            r.create_networks(kube, networks, namespace)
            r.all_at(kube, networks, namespace, 1)
            before = r.configmaps(kube, namespace)
            assert all("wave" not in c["data"] for c in before.values())

            started = time.monotonic()
            with r.sampling(kube, networks, namespace, target=2) as watch:
                r.change(folder, "  cidr: {{ spec.cidr }}", '  cidr: {{ spec.cidr }}\n  wave: "2"')
                r.all_at(kube, networks, namespace, 2, timeout=180)
            took = time.monotonic() - started

            after = r.configmaps(kube, namespace)
            assert len(after) == r.PARENTS and all(c["data"].get("wave") == "2" for c in after.values())
            said = eventually(
                lambda: (
                    (r.kind_rollout(kube, KIND) or {}).get("status", {}).get("currentRevision") == 2
                    and r.kind_rollout(kube, KIND)
                ),
                what="the KindRollout at revision 2",
            )
            status = said["status"]
            assert status["updatedParents"] == r.PARENTS and status["updateRevision"] == 2
            assert {c["type"]: c["status"] for c in status["conditions"]} == {
                "Progressing": "True",
                "Ready": "True",
            }
    finally:
        r.delete_kind_rollout(kube, KIND)

    print(f"\n200 parents moved to revision 2 in {took:.1f} s; at most {watch.most_moving} moving at once")
    for seconds, moving, at_target in watch.samples[:: max(1, len(watch.samples) // 40)]:
        print(f"  {seconds:6.1f} s  at revision 2: {at_target:3d}  moving: {moving:3d}")
    assert watch.most_moving <= 20, watch.samples
    # In waves, not at once: the rollout went through states with some parents moved and many not.
    assert any(20 <= at < 180 for _, _, at in watch.samples), watch.samples
