"""``helm uninstall`` takes the kinds' revisions with it: the engine, running as the chart's pod
(the downward API's name and namespace, the chart's ServiceAccount), asks the API server which
Deployment it belongs to and names it the owner of each ControllerRevision it writes, so the
garbage collector deletes them once the chart's Deployment is gone; a revision an earlier engine
wrote without an owner (one run outside a pod) is given it too.  The seed key's Secret stays:
the parents and their children outlive the release, and a new install must draw the values they
hold."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

from engine.core.model.language import seedkeys
from engine.runtime.cluster.kube import Kube
from tests.integration._chart import Release, ready_example
from tests.integration._engine import ROOT, eventually
from tests.integration._process import CHART, engine_process, helm

KIND_DIR = ROOT / "templates" / "network"
REVISIONS = ("apps/v1", "ControllerRevision")


def test_revisions_owned_by_the_charts_deployment_go_with_it_and_the_seed_key_stays(
    kube: Kube,
    namespace: str,
    other_namespace: str,
    local_cluster: Any,
    crds_installed: list[str],
    tmp_path: Path,
) -> None:
    kubeconfig = local_cluster.kubeconfig
    release = f"stencil-{uuid.uuid4().hex[:6]}"
    values = ("kinds.only[0]=network", f"kindLeases.namespace={namespace}")
    helm(kubeconfig, "install", release, str(CHART), "--namespace", namespace,
         *(arg for value in values for arg in ("--set", value)))  # fmt: skip
    installed = True
    try:
        chart = Release.read(kubeconfig, release, namespace)
        name = chart.one("Deployment")["metadata"]["name"]
        labels = chart.one("Deployment")["spec"]["selector"]["matchLabels"]
        # The chart's pod, on the simulated node: the engine below runs as that pod.
        pod = eventually(
            lambda: next(iter(kube.list(kube.resource("v1", "Pod"), namespace, selector(labels))[0]), None),
            what="the chart's pod",
        )["metadata"]["name"]
        config = chart.engine_kubeconfig(kube, kubeconfig, tmp_path / "sa.kubeconfig")
        empty = tmp_path / "no-kinds"
        empty.mkdir()
        args = ("--templates", str(empty), *chart.engine_args(pod))

        # An engine that knows no pod of its own writes the kind's revision with no owner.
        with engine_process(
            config, tmp_path / "unowned.log", *args, env={"POD_NAMESPACE": namespace}
        ) as engine:
            try:
                ready_example(kube, KIND_DIR, other_namespace)  # reconciled, so the key was drawn
                written = eventually(lambda: revisions(kube, namespace), what="the kind's revision")
                assert [r["metadata"].get("ownerReferences") for r in written] == [None] * len(written)
                assert engine.stop() == 0
            except BaseException:
                print(engine.output())
                raise

        # The engine as the chart's pod names the Deployment it finds as the owner, of that one too.
        live = kube.get(kube.resource("apps/v1", "Deployment"), name, namespace)
        assert live is not None
        owner = {"apiVersion": "apps/v1", "kind": "Deployment"}
        owner.update(name=live["metadata"]["name"], uid=live["metadata"]["uid"])
        env = {"POD_NAMESPACE": namespace, "POD_NAME": pod}
        with engine_process(config, tmp_path / "owned.log", *args, env=env) as engine:
            try:
                eventually(
                    lambda: (
                        [r["metadata"].get("ownerReferences") for r in revisions(kube, namespace)]
                        == [[owner]] * len(written)
                    ),
                    what="the revision to name the Deployment as its owner",
                )
                assert engine.stop() == 0
            except BaseException:
                print(engine.output())
                raise

        helm(kubeconfig, "uninstall", release, "--namespace", namespace, "--wait")
        installed = False
        eventually(lambda: not revisions(kube, namespace), what="the revisions to be garbage-collected")
        assert kube.get(kube.resource("v1", "Secret"), seedkeys.SECRET_NAME, namespace) is not None
    finally:
        if installed:
            helm(kubeconfig, "uninstall", release, "--namespace", namespace, "--wait")


def selector(labels: dict[str, str]) -> str:
    return ",".join(f"{key}={value}" for key, value in labels.items())


def revisions(kube: Kube, namespace: str) -> list[dict[str, Any]]:
    """The ControllerRevisions of the Network kind in ``namespace``."""
    return kube.list(kube.resource(*REVISIONS), namespace, "stencil.dev/kind=network")[0]
