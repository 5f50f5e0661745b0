"""A kind dropped into a running release with two applies, its CRD and
``stencil bundle KIND_DIR | kubectl apply -f -``, is served by the engine already running with the
chart's RBAC and nothing else: kube-controller-manager aggregates the bundle's two ClusterRoles into
the release's roles, and the engine loads the kind from its ConfigMap, holds the kind's Lease and
brings a parent to Ready, with no restart and no ``helm upgrade``."""

from __future__ import annotations

import contextlib
import functools
import subprocess
import sys
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from engine.core.decisions.coordination import holding
from engine.core.model import errors
from engine.localcluster import binaries
from engine.runtime.cluster.kube import Kube
from tests.integration._chart import Release, ready_example
from tests.integration._engine import ROOT, eventually
from tests.integration._process import chart_installed, engine_process, helm
from tests.unit._chart import grants

KIND_DIR = ROOT / "templates" / "network"
CLUSTER_ROLES = "/apis/rbac.authorization.k8s.io/v1/clusterroles"


def kubectl(kubeconfig: Path, *args: str, stdin: str | None = None) -> None:
    found = binaries.find("kubectl")
    assert found is not None, "kubectl is not built"
    command = [str(found), "--kubeconfig", str(kubeconfig), *args]
    subprocess.run(command, input=stdin, text=True, check=True, timeout=120)


def stencil(*args: str) -> str:
    """What ``stencil ARGS`` prints, run as a person runs it."""
    command = [sys.executable, "-m", "engine.tools.cli", *args]
    return subprocess.run(command, check=True, capture_output=True, text=True, timeout=120).stdout


def aggregated(kube: Kube, role: dict[str, Any], into: str) -> bool:
    """Whether the ClusterRole ``into`` grants everything ``role`` does."""
    rules = kube.request("GET", f"{CLUSTER_ROLES}/{into}").get("rules") or []
    return grants(role["rules"]) <= grants(rules)


def reads(client: Kube, path: str) -> bool:
    """Whether ``client`` may list ``path`` now (a CRD just applied may answer 429 a moment)."""
    try:
        client.request("GET", path)
    except errors.ApiError:
        return False
    return True


def test_stencil_bundle_piped_to_kubectl_is_served_by_the_running_engine(
    kube: Kube,
    namespace: str,
    other_namespace: str,
    local_cluster: Any,
    connect: Callable[..., Kube],
    crds_installed: list[str],
    tmp_path: Path,
) -> None:
    kubeconfig = local_cluster.kubeconfig
    release = f"stencil-{uuid.uuid4().hex[:6]}"  # its objects' name, as it holds the chart's
    bundle = stencil("bundle", str(KIND_DIR), "--release", release, "--namespace", namespace)
    engine_role, lease_role, _ = (d for d in yaml.safe_load_all(bundle) if d)
    # The chart serves DeployWebService alone; Network is the kind dropped in.  The kinds' Leases
    # are kept in the test's namespace, away from other tests' engines.
    values = ("replicaCount=0", "kinds.only[0]=deploywebservice", f"kindLeases.namespace={namespace}")
    try:
        with chart_installed(kubeconfig, release, namespace, *values):
            installed = Release.read(kubeconfig, release, namespace)
            config = installed.engine_kubeconfig(kube, kubeconfig, tmp_path / "sa.kubeconfig")
            as_engine = connect(config)
            networks = kube.resource("samplecrd.k8s.io/v1", "Network")
            with pytest.raises(errors.ApiError) as refused:
                as_engine.request("GET", networks.path())
            assert refused.value.status == 403  # not before the drop-in
            empty = tmp_path / "no-kinds"
            empty.mkdir()
            with engine_process(
                config, tmp_path / "engine.log", "--templates", str(empty), *installed.engine_args(),
                env={"POD_NAMESPACE": namespace},
            ) as engine:  # fmt: skip
                try:
                    eventually(engine.ready, what="/readyz")

                    # The two applies.
                    kubectl(kubeconfig, "apply", "-f", "-", stdin=stencil("crd", str(KIND_DIR)))
                    kubectl(kubeconfig, "apply", "-f", "-", stdin=bundle)

                    # The release's roles for dropped-in kinds pick the bundle's rules up.
                    for role, into in (
                        (engine_role, f"{release}-bundled"),
                        (lease_role, f"{release}-bundled-leases"),
                    ):
                        eventually(
                            functools.partial(aggregated, kube, role, into),
                            what=f"ClusterRole {into} to aggregate {role['metadata']['name']}",
                        )
                    eventually(lambda: reads(as_engine, networks.path()), what="the engine to be allowed")

                    # The running engine serves the kind: it holds its Lease and makes a parent Ready.
                    sample = ready_example(kube, KIND_DIR, other_namespace)
                    lease = holding.lease_name(sample["apiVersion"], sample["kind"])
                    assert engine.metric("leader_election_master_status", name=lease) == [1.0]
                    assert engine.process.poll() is None  # never restarted
                    history = helm(
                        kubeconfig, "history", release, "--namespace", namespace, "--output", "json"
                    )
                    assert len(yaml.safe_load(history)) == 1  # never upgraded
                except BaseException:
                    print(engine.output())
                    raise
    finally:
        # Cluster-scoped, so not gone with the namespace; deleted after the release, as its
        # roles aggregated them (docs/install.md, Uninstall).
        for role in (engine_role, lease_role):
            with contextlib.suppress(errors.NotFound):
                kube.request("DELETE", f"{CLUSTER_ROLES}/{role['metadata']['name']}")
