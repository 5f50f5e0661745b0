"""Playbook (seed 004) end to end: its reader reports status.progress through the status
subresource with kubectl; the engine keeps a progress of 50 as reported, and once 100 is
reported it deletes the Playbook, as the seed's reconcile did, with a Completed event."""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest

from engine.localcluster import binaries
from engine.runtime.cluster.kube import Kube, Resource
from engine.tools import manifests
from tests.integration._engine import ROOT, condition_is, eventually, idle, running_engine, settled

EXAMPLES = ROOT / "templates" / "playbook" / "examples"


@pytest.fixture
def playbooks(kube: Kube, crds_installed: list[str]) -> Resource:
    return kube.resource("ops.netease.com/v1", "Playbook")


def test_reported_progress_is_kept_and_100_deletes_the_playbook(
    kube: Kube, local_cluster: Any, namespace: str, playbooks: Resource
) -> None:
    kubectl = binaries.find("kubectl")
    assert kubectl is not None, "kubectl is not among the cached binaries"

    def run(*args: str) -> str:
        command = [str(kubectl), "--kubeconfig", str(local_cluster.kubeconfig), "-n", namespace, *args]
        return subprocess.run(command, check=True, capture_output=True, text=True).stdout

    def report(progress: int) -> None:
        patch = json.dumps({"status": {"progress": progress}})
        run("patch", "playbook", name, "--subresource=status", "--type=merge", "-p", patch)

    sample = manifests.read(manifests.yaml_files(EXAMPLES))[0]
    name = sample["metadata"]["name"]
    with running_engine(kube, ROOT / "templates", namespace) as engine:

        def seen_by_engine() -> object:
            """The server's resourceVersion of the Playbook once the engine's cache has it too."""
            server = kube.get(playbooks, name, namespace)
            controller = engine.controllers.get((playbooks.group + "/" + playbooks.version, "Playbook"))
            cached = controller and controller.parents.get(namespace, name)
            server_version = server and server["metadata"]["resourceVersion"]
            return (
                server_version if cached and cached["metadata"]["resourceVersion"] == server_version else None
            )

        created = manifests.apply_all(kube, [sample], namespace)[0]
        eventually(condition_is(kube, playbooks, name, namespace, "Ready", "True"), what="Ready=True")

        # 1. A progress of 50, reported from outside, is what the Playbook shows once the engine
        # has reconciled it: the engine's status write keeps what it does not derive.
        report(50)
        eventually(
            settled(lambda: idle(engine) and seen_by_engine() is not None, seen_by_engine),
            what="the engine to reconcile progress 50",
        )
        reported = kube.get(playbooks, name, namespace)
        assert reported is not None
        assert reported["status"]["progress"] == 50
        assert reported["metadata"]["uid"] == created["metadata"]["uid"]
        table = run(
            "get", "playbook", name, "-o", "custom-columns=NAME:.metadata.name,PROGRESS:.status.progress"
        )
        assert table.split() == ["NAME", "PROGRESS", name, "50"]
        assert name in run("get", "playbook").split()

        # 2. A progress of 100 deletes the Playbook, and an event says why.
        report(100)
        eventually(lambda: kube.get(playbooks, name, namespace) is None, what="the Playbook to be deleted")

    found = kube.request("GET", f"/api/v1/namespaces/{namespace}/events")["items"]
    completed = [
        e
        for e in found
        if e["reason"] == "Completed"
        and e["involvedObject"]["kind"] == "Playbook"
        and e["involvedObject"]["uid"] == created["metadata"]["uid"]
    ]
    assert len(completed) == 1, found
    assert name in completed[0]["message"]
