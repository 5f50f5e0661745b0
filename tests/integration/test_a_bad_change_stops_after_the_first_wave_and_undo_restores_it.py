"""A change whose template fails to render for every parent stops after the first wave: the 20
parents it moved say why, the other 180 keep their children exactly as they were (same
resourceVersion) and stay at revision 1, with a failure budget of none the rollout is paused,
in counts that name no parent (KindRollout status, an Event, ``stencil rollout status``); a
parent not yet moved renders its own spec change from revision 1; ``stencil rollout undo``
then brings the 20 back to revision 1, Ready."""

from __future__ import annotations

import time
from pathlib import Path

from click.testing import CliRunner

from engine.runtime.cluster.kube import Kube
from engine.tools.cli import main
from tests.integration import _rollouts as r
from tests.integration._engine import conditions, eventually, running_engine

KIND = "network-bad"


def test_a_bad_change_stops_after_the_first_wave_and_undo_restores_it(
    kube: Kube, namespace: str, crds_installed: list[str], tmp_path: Path, local_cluster: object
) -> None:
    kubeconfig = str(local_cluster.kubeconfig)  # type: ignore[attr-defined]
    networks = kube.resource("samplecrd.k8s.io/v1", "Network")
    folder = r.network_kind(tmp_path / "kinds", KIND, budget="maxFailures: 0")
    cli = CliRunner()
    try:
        with running_engine(kube, tmp_path / "kinds", namespace, revisions_namespace=namespace, workers=4):
            r.create_networks(kube, networks, namespace)
            r.all_at(kube, networks, namespace, 1)
            before = {
                name: c["metadata"]["resourceVersion"] for name, c in r.configmaps(kube, namespace).items()
            }

            r.change(
                folder, "  cidr: {{ spec.cidr }}", "  cidr: {{ spec.cidr }}\n  zone: {{ spec.zone.name }}"
            )
            eventually(
                lambda: (
                    (r.kind_rollout(kube, KIND) or {}).get("spec", {}).get("paused")
                    and r.kind_rollout(kube, KIND)
                ),
                what="the rollout paused",
            )
            time.sleep(3)  # long enough for a rollout that did not stop to move the next wave
            items, _ = kube.list(networks, namespace)
            moved = sorted(p["metadata"]["name"] for p in items if r.revision_of(p) == 2)
            assert len(moved) == 20, moved
            for parent in items:
                if r.revision_of(parent) == 2:
                    assert conditions(parent)["TemplatesRendered"]["status"] == "False"
                else:
                    assert r.revision_of(parent) == 1 and r.ready(parent)
            after = {
                name: c["metadata"]["resourceVersion"] for name, c in r.configmaps(kube, namespace).items()
            }
            assert after == before  # nobody's children changed: the moved ones failed to render

            said = eventually(
                lambda: (
                    (r.kind_rollout(kube, KIND) or {}).get("status", {}).get("failure")
                    and r.kind_rollout(kube, KIND)["status"]
                ),
                what="the rollout's status saying why it paused",
            )
            failure = said["failure"]
            assert failure["reason"] == "RenderFailed" and "parent" not in failure
            assert said["failedParents"] >= 1 and said["failedNamespaces"] == 1
            progressing = {c["type"]: c for c in said["conditions"]}["Progressing"]
            assert progressing["status"] == "False" and "net-" not in progressing["message"]
            events, _ = kube.list(kube.resource("v1", "Event"), "default")
            paused_events = [e for e in events if e["reason"] == "RolloutPaused"]
            assert any(e["involvedObject"]["name"] == KIND for e in paused_events)
            assert not any("net-" in e["message"] or "zone" in e["message"] for e in paused_events)
            shown = cli.invoke(main, ["rollout", "status", KIND, "--kubeconfig", kubeconfig])
            assert shown.exit_code == 0 and "stopped: RenderFailed" in shown.output

            # A parent not yet moved is rendered from its revision, its own spec change too.
            kube.patch_json(
                networks,
                "net-150",
                namespace,
                [{"op": "replace", "path": "/spec/gateway", "value": "10.0.150.9"}],
            )
            changed = eventually(
                lambda: (
                    r.configmaps(kube, namespace)["net-150-network"]["data"]["gateway"] == "10.0.150.9"
                    and r.configmaps(kube, namespace)["net-150-network"]
                ),
                what="the spec change of a parent not moved applied",
            )
            assert "zone" not in changed["data"]
            assert r.revision_of(kube.get(networks, "net-150", namespace) or {}) == 1
            before["net-150-network"] = changed["metadata"]["resourceVersion"]

            undone = cli.invoke(main, ["rollout", "undo", KIND, "--kubeconfig", kubeconfig])
            assert undone.exit_code == 0, undone.output
            assert "rolling back to revision 1" in undone.output
            r.all_at(kube, networks, namespace, 1)
            assert {
                n: c["metadata"]["resourceVersion"] for n, c in r.configmaps(kube, namespace).items()
            } == before
            restored = eventually(
                lambda: (
                    (r.kind_rollout(kube, KIND) or {}).get("status", {}).get("updatedParents") == r.PARENTS
                    and r.kind_rollout(kube, KIND)
                ),
                what="the KindRollout complete at revision 1",
            )
            assert restored["status"]["updateRevision"] == 1 and not restored["spec"].get("paused")
    finally:
        r.delete_kind_rollout(kube, KIND)
