"""Periodic resync re-delivers every cached object as a SYNC event, without any change."""

from __future__ import annotations

from typing import Any

from engine.runtime.cluster.kube import Kube
from engine.runtime.cluster.watching import Informer
from tests._deadlines import eventually


def test_resync_delivers_each_cached_object_again_as_sync(kube: Kube, namespace: str) -> None:
    resource = kube.resource("v1", "ConfigMap")
    for name in ("a", "b"):
        kube.create(
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": name, "namespace": namespace, "labels": {"test": "informer"}},
            }
        )
    syncs: list[tuple[str, bool]] = []

    def record(type_: str, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
        if type_ == "SYNC":
            syncs.append((obj["metadata"]["name"], old is obj))

    informer = Informer(
        kube,
        resource,
        namespace=namespace,
        label_selector="test=informer",
        on_event=record,
        resync_period=0.2,
    )
    informer.start()
    try:
        eventually(lambda: len(syncs) >= 4, what="two resyncs")
        assert sorted(syncs[:2]) == [("a", True), ("b", True)]
        assert sorted(syncs[2:4]) == [("a", True), ("b", True)]
    finally:
        informer.stop()
