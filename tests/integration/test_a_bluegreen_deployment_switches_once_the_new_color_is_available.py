"""examples/metacontroller/bluegreen, Metacontroller's BlueGreenDeployment as a kind, on the real
plane with the engine's default resync (ten minutes): a new Pod template scales up the color
the Service does not select, the Service switches to it only once all its replicas are
available, and only then is the old color scaled to 0; and back again on the next change. A
watch of the ReplicaSets and the Service sees the steps in that order (by the plane's
resourceVersions, one order for every object), each taken within seconds of the last. A change
of replicas alone scales the selected color, with no rollout."""

from __future__ import annotations

import threading
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

KIND_DIR = ROOT / "examples" / "metacontroller" / "bluegreen"
API_VERSION = "metacontroller.examples.stencil.dev/v1"
REPLICAS = 2


def _bluegreen(labels: dict[str, str], replicas: int = REPLICAS) -> dict[str, Any]:
    return {
        "apiVersion": API_VERSION,
        "kind": "BlueGreenDeployment",
        "metadata": {"name": "bg"},
        "spec": {
            "replicas": replicas,
            "minReadySeconds": 1,
            "selector": {"matchLabels": {"app": "bg"}},
            "template": {
                "metadata": {"labels": {"app": "bg", **labels}},
                "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]},
            },
            "service": {
                "metadata": {"name": "bg-front"},
                "spec": {"selector": {"app": "bg"}, "ports": [{"port": 80}]},
            },
        },
    }


@pytest.fixture
def bluegreens(kube: Kube, tmp_path: Path) -> Iterator[tuple[Resource, Path]]:
    templates = _examples.served(kube, KIND_DIR, tmp_path)
    yield kube.resource(API_VERSION, "BlueGreenDeployment"), templates


class Steps:
    """Every change a watch sees of the parent's ReplicaSets and Service, as
    ``(resourceVersion, name, what)``: a ReplicaSet's ``(spec.replicas, availableReplicas)``, the
    Service's selected color."""

    def __init__(self, kube: Kube, namespace: str) -> None:
        self.seen: list[tuple[int, str, Any]] = []
        self._lock = threading.Lock()
        self._stops: list[Any] = []
        for res in (kube.resource("apps/v1", "ReplicaSet"), kube.resource("v1", "Service")):
            _, version = kube.list(res, namespace)
            args = (kube, res, namespace, version)
            threading.Thread(target=self._record, args=args, daemon=True).start()
        eventually(lambda: len(self._stops) == 2, what="both watches open")

    def _record(self, kube: Kube, res: Resource, namespace: str, version: str) -> None:
        selector = placement.PARENT_NAME_LABEL + "=bg"
        for kind, obj in kube.watch(res, version, namespace, selector, on_open=self._stops.append):
            if kind not in ("ADDED", "MODIFIED"):
                continue
            spec, status = obj.get("spec") or {}, obj.get("status") or {}
            if obj["kind"] == "Service":
                what: Any = (spec.get("selector") or {}).get("color")
            else:
                what = (spec.get("replicas"), status.get("availableReplicas", 0))
            with self._lock:
                self.seen.append((int(obj["metadata"]["resourceVersion"]), obj["metadata"]["name"], what))

    def since(self, mark: int) -> list[tuple[int, str, Any]]:
        with self._lock:
            return sorted(self.seen[mark:])

    def close(self) -> None:
        for stop in self._stops:
            stop()


def _done(kube: Kube, res: Resource, namespace: str, color: str) -> bool:
    """The rollout to ``color`` is over: the parent says so, Ready, and the other color has no Pod."""
    parent = kube.get(res, "bg", namespace) or {}
    found = conditions(parent)
    other = "green" if color == "blue" else "blue"
    old = kube.get(kube.resource("apps/v1", "ReplicaSet"), f"bg-{other}", namespace) or {}
    return (
        (parent.get("status") or {}).get("activeColor") == color
        and parent.get("metadata", {}).get("generation") == parent["status"].get("observedGeneration")
        and found.get("Ready", {}).get("status") == "True"
        and found.get("RolledOut", {}).get("status") == "True"
        and (old.get("status") or {}).get("replicas") == 0
    )


def _assert_in_order(seen: list[tuple[int, str, Any]], color: str) -> None:
    """In the watch's order: the new color scaled up, all its replicas available, then the switch,
    then the old color scaled to 0; never the old one scaled down before the switch."""
    new, old = f"bg-{color}", "bg-" + ("green" if color == "blue" else "blue")
    switch = next(rv for rv, name, what in seen if name == "bg-front" and what == color)
    ready = next(rv for rv, name, what in seen if name == new and what == (REPLICAS, REPLICAS))
    scaled_up = next(rv for rv, name, what in seen if name == new and what[0] == REPLICAS)
    scaled_down = next(rv for rv, name, what in seen if name == old and what[0] == 0)
    assert scaled_up < ready < switch < scaled_down, seen
    assert all(what[0] == REPLICAS for rv, name, what in seen if name == old and rv < switch), seen


def test_each_change_switches_once_the_new_color_is_available_then_scales_the_old_down(
    kube: Kube, namespace: str, bluegreens: tuple[Resource, Path]
) -> None:
    res, templates = bluegreens
    steps = Steps(kube, namespace)
    try:
        with running_engine(kube, templates, namespace):  # the default resync: ten minutes
            manifests.apply_all(kube, [_bluegreen({})], namespace)
            eventually(lambda: _done(kube, res, namespace, "blue"), what="blue serving")

            for color, labels in (("green", {"new": "label"}), ("blue", {"new2": "label2"})):
                mark = len(steps.seen)
                manifests.apply_all(kube, [_bluegreen(labels)], namespace)
                eventually(
                    lambda color=color: _done(kube, res, namespace, color),
                    what=f"{color} serving, the other color at 0",
                )
                eventually(
                    lambda mark=mark: any(what == (0, 0) for _, _, what in steps.since(mark)),
                    what="the old color's scale-down watched",
                )
                _assert_in_order(steps.since(mark), color)
                service = kube.get(kube.resource("v1", "Service"), "bg-front", namespace)
                assert service["spec"]["selector"] == {"app": "bg", "color": color}
                active = kube.get(res, "bg", namespace)["status"]["active"]
                assert active.get("availableReplicas") == REPLICAS, active

            # A change of replicas alone scales the color the Service selects, with no rollout.
            manifests.apply_all(kube, [_bluegreen({"new2": "label2"}, replicas=3)], namespace)
            replicasets = kube.resource("apps/v1", "ReplicaSet")
            eventually(
                lambda: (
                    (kube.get(replicasets, "bg-blue", namespace) or {})
                    .get("status", {})
                    .get("availableReplicas")
                    == 3
                ),
                what="blue scaled to 3",
            )
            eventually(lambda: _done(kube, res, namespace, "blue"), what="blue Ready at 3")
            assert kube.get(replicasets, "bg-green", namespace)["spec"]["replicas"] == 0
    finally:
        steps.close()
