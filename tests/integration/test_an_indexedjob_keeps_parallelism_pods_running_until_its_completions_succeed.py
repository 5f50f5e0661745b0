"""examples/metacontroller/indexedjob, Metacontroller's IndexedJob as a kind, on the real plane.
kwok, which plays the kubelet there, runs a Pod to completion only when a Job owns it, so this
test finishes the IndexedJob's Pods itself, as a kubelet would once their containers exit 0:
each Running Pod is set Succeeded. The IndexedJob then makes the next indices as the Pods
succeed, never more than parallelism active at once (as a watch of its Pods counts them), each
Pod with its index in JOB_INDEX; it counts active and succeeded Pods, turns Complete (and so
Ready) once completions have succeeded, and makes no Pod again after that."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.core.model.children import placement
from engine.runtime.cluster.kube import Kube, Resource
from engine.tools import manifests
from tests.integration import _examples
from tests.integration._engine import ROOT, conditions, eventually, running_engine

pytestmark = [pytest.mark.cluster, pytest.mark.nodes]

KIND_DIR = ROOT / "examples" / "metacontroller" / "indexedjob"
API_VERSION = "metacontroller.examples.stencil.dev/v1"
COMPLETIONS, PARALLELISM = 6, 2
TERMINAL = ("Succeeded", "Failed")


def _indexedjob() -> dict[str, Any]:
    return {
        "apiVersion": API_VERSION,
        "kind": "IndexedJob",
        "metadata": {"name": "ij"},
        "spec": {
            "completions": COMPLETIONS,
            "parallelism": PARALLELISM,
            "template": {
                "metadata": {"labels": {"app": "ij"}},
                "spec": {
                    "restartPolicy": "OnFailure",
                    "containers": [
                        {"name": "print", "image": "busybox", "command": ["sh", "-c", "echo $JOB_INDEX"]}
                    ],
                },
            },
        },
    }


@pytest.fixture
def indexedjobs(kube: Kube, tmp_path: Path) -> Iterator[tuple[Resource, Path]]:
    templates = _examples.served(kube, KIND_DIR, tmp_path)
    yield kube.resource(API_VERSION, "IndexedJob"), templates


class Active:
    """A watch of the parent's Pods that counts, after each event, those neither succeeded nor
    failed, and keeps the highest count seen."""

    def __init__(self, kube: Kube, namespace: str) -> None:
        self.peak = 0
        self.made: list[str] = []  # every Pod added, in order
        self._stops: list[Any] = []
        res = kube.resource("v1", "Pod")
        _, version = kube.list(res, namespace)
        args = (kube, res, namespace, version)
        threading.Thread(target=self._record, args=args, daemon=True).start()
        eventually(lambda: self._stops, what="the watch open")

    def _record(self, kube: Kube, res: Resource, namespace: str, version: str) -> None:
        phases: dict[str, str] = {}
        selector = placement.PARENT_NAME_LABEL + "=ij"
        for kind, obj in kube.watch(res, version, namespace, selector, on_open=self._stops.append):
            name = obj["metadata"]["name"]
            if kind == "DELETED":
                phases.pop(name, None)
                continue
            if kind == "ADDED":
                self.made.append(name)
            phases[name] = (obj.get("status") or {}).get("phase", "Pending")
            self.peak = max(self.peak, sum(1 for phase in phases.values() if phase not in TERMINAL))

    def close(self) -> None:
        for stop in self._stops:
            stop()


def _pods(kube: Kube, namespace: str) -> dict[str, dict[str, Any]]:
    return {p["metadata"]["name"]: p for p in kube.list(kube.resource("v1", "Pod"), namespace)[0]}


def _succeed(kube: Kube, pod: dict[str, Any]) -> None:
    """What a kubelet writes of a Pod whose containers all exited 0."""
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    finished = {"exitCode": 0, "reason": "Completed", "startedAt": now, "finishedAt": now}
    statuses = [
        {**status, "ready": False, "started": False, "state": {"terminated": finished}}
        for status in (pod.get("status") or {}).get("containerStatuses") or []
    ]
    meta = pod["metadata"]
    ops = [
        {"op": "test", "path": "/metadata/uid", "value": meta["uid"]},
        {"op": "replace", "path": "/status/phase", "value": "Succeeded"},
        {"op": "replace", "path": "/status/containerStatuses", "value": statuses},
    ]
    kube.patch_status(kube.resource("v1", "Pod"), meta["name"], meta["namespace"], ops)


def test_it_runs_parallelism_pods_at_a_time_until_its_completions_succeed(
    kube: Kube, namespace: str, indexedjobs: tuple[Resource, Path]
) -> None:
    res, templates = indexedjobs
    active = Active(kube, namespace)
    try:
        with running_engine(kube, templates, namespace):
            manifests.apply_all(kube, [_indexedjob()], namespace)
            first = eventually(
                lambda: (kube.get(res, "ij", namespace) or {}).get("status", {}).get("active") == 2,
                what="two Pods active",
            )
            assert first and sorted(_pods(kube, namespace)) == ["ij-0", "ij-1"]
            status = kube.get(res, "ij", namespace)["status"]
            assert (status["succeeded"], status["failed"]) == (0, 0), status
            assert conditions(kube.get(res, "ij", namespace))["Complete"]["status"] == "False"

            def all_succeeded() -> bool:
                """Set every Running Pod Succeeded, as its kubelet would; done once all have."""
                pods = _pods(kube, namespace)
                for pod in pods.values():
                    if (pod.get("status") or {}).get("phase") == "Running":
                        _succeed(kube, pod)
                phases = [(p.get("status") or {}).get("phase") for p in pods.values()]
                return len(pods) == COMPLETIONS and phases == ["Succeeded"] * COMPLETIONS

            eventually(all_succeeded, what=f"{COMPLETIONS} Pods succeeded")

            def complete() -> dict[str, Any] | None:
                parent = kube.get(res, "ij", namespace) or {}
                found = conditions(parent)
                done = all(found.get(c, {}).get("status") == "True" for c in ("Complete", "Ready"))
                return parent if done else None

            parent = eventually(complete, what="Complete and Ready")
            status = parent["status"]
            assert (status["active"], status["succeeded"], status["failed"]) == (0, COMPLETIONS, 0)
            indices = [f"ij-{index}" for index in range(COMPLETIONS)]
            assert active.made == indices, active.made  # each index once, the lowest first
            assert active.peak == PARALLELISM, active.peak  # never more than parallelism at once
            for name, pod in _pods(kube, namespace).items():
                env = {e["name"]: e["value"] for e in pod["spec"]["containers"][0]["env"]}
                assert env == {"JOB_INDEX": name.removeprefix("ij-")}, pod["spec"]

            # A finished Job makes no Pod again: one removed (as Pod GC would) is not made again.
            kube.delete(kube.resource("v1", "Pod"), "ij-0", namespace)
            eventually(lambda: "ij-0" not in _pods(kube, namespace), what="ij-0 gone")
            time.sleep(3)
            assert "ij-0" not in _pods(kube, namespace), active.made
            assert conditions(kube.get(res, "ij", namespace))["Complete"]["status"] == "True"
    finally:
        active.close()
