"""Two engines with different kinds in one namespace do not stand in each other's way: each holds
its own kind's Lease, never campaigns for the other's, and converges its own parents."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.runtime.cluster.kube import Kube
from engine.tools import manifests
from tests.integration._engine import eventually
from tests.integration._holds import DWS_LEASE, NETWORK_LEASE, engine, holder, holds, kinds, reconciles
from tests.integration._shards import network, published


def deploywebservice(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "operator.wujiuye.com/v1beta1",
        "kind": "DeployWebService",
        "metadata": {"name": name},
        "spec": {"image": "nginx:1.27", "replicas": 2, "exposed_port": 80},
    }


def test_engines_with_different_kinds_each_hold_and_serve_their_own(
    kube: Kube, namespace: str, crds_installed: list[str], local_cluster: Any, tmp_path: Path
) -> None:
    config = local_cluster.kubeconfig
    networks = kinds(tmp_path / "networks", "network")
    services = kinds(tmp_path / "services", "deploywebservice")
    deployments = kube.resource("apps/v1", "Deployment")
    with (
        engine(config, tmp_path, namespace, "engine-n", networks) as first,
        engine(config, tmp_path, namespace, "engine-d", services) as second,
    ):
        eventually(lambda: holds(first, NETWORK_LEASE) == [1.0], what="engine-n to hold Network")
        eventually(lambda: holds(second, DWS_LEASE) == [1.0], what="engine-d to hold DeployWebService")
        manifests.apply_all(kube, [network("net"), deploywebservice("web")], namespace)

        eventually(lambda: published(kube, namespace).get("net") == "10.0.0.0/16", what="the Network's child")
        eventually(
            lambda: (
                ((kube.get(deployments, "web-deployment", namespace) or {}).get("spec") or {}).get("replicas")
                == 2
            ),
            what="the DeployWebService's Deployment",
        )
        assert (holder(kube, namespace, NETWORK_LEASE), holder(kube, namespace, DWS_LEASE)) == (
            "engine-n",
            "engine-d",
        )
        # Neither campaigns for the other's kind, nor reconciles it.
        assert (holds(first, DWS_LEASE), holds(second, NETWORK_LEASE)) == ([], [])
        # The counts tick as each reconcile returns, after its children are visible.
        eventually(
            lambda: reconciles(first, "network") >= 1 and reconciles(second, "deploywebservice") >= 1,
            what="each engine's reconciles",
        )
        assert (reconciles(first, "deploywebservice"), reconciles(second, "network")) == (0, 0)
