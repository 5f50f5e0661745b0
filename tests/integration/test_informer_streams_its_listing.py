"""An informer lists by the API server's streamed list (a watch that begins with every object),
not in pages, and goes on watching on the same request."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from engine.runtime.cluster.kube import Kube
from engine.runtime.cluster.watching import Informer
from tests._deadlines import eventually


def configmap(namespace: str, name: str, value: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": namespace, "labels": {"test": "streamed"}},
        "data": {"value": value},
    }


def test_informer_syncs_from_a_streamed_list_and_watches_on(
    kube: Kube, namespace: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    resource = kube.resource("v1", "ConfigMap")
    for i in range(3):
        kube.create(configmap(namespace, f"cm-{i}", str(i)))

    def no_pages(*args: Any, **kwargs: Any) -> Iterator[Any]:
        raise AssertionError("listed in pages")

    monkeypatch.setattr(kube, "pages", no_pages)
    watches: list[bool] = []
    watch = kube.watch

    def recorded(*args: Any, **kwargs: Any) -> Iterator[tuple[str, dict[str, Any]]]:
        watches.append(bool(kwargs.get("initial_events")))
        return watch(*args, **kwargs)

    monkeypatch.setattr(kube, "watch", recorded)
    seen: list[tuple[str, str]] = []
    informer = Informer(
        kube,
        resource,
        namespace=namespace,
        label_selector="test=streamed",
        on_event=lambda type_, obj, old: seen.append((type_, obj["metadata"]["name"])),
    )
    informer.start()
    try:
        assert informer.wait_for_sync(30)
        assert sorted(seen) == [("ADDED", "cm-0"), ("ADDED", "cm-1"), ("ADDED", "cm-2")]
        cached = informer.get(namespace, "cm-1")
        assert cached is not None
        assert (cached["apiVersion"], cached["kind"], cached["data"]) == ("v1", "ConfigMap", {"value": "1"})
        kept = cached["metadata"]["managedFields"]  # cut to the engine's own applied set
        assert all(set(e) == {"manager", "operation", "fieldsV1"} and e["manager"] == "stencil" for e in kept)

        kube.apply(configmap(namespace, "cm-1", "changed"))
        eventually(lambda: ("MODIFIED", "cm-1") in seen, what="the change, on the same watch")
        assert watches == [True]  # one request: the listing, then the watch
    finally:
        informer.stop()
