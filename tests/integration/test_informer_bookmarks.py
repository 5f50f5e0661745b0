"""Bookmarks move an informer's watch position forward without any event for it."""

from __future__ import annotations

from typing import Any

from engine.runtime.cluster.kube import Kube
from engine.runtime.cluster.watching import Informer
from tests._deadlines import eventually


def test_bookmark_advances_the_resource_version_past_changes_outside_the_watch(
    kube: Kube, namespace: str
) -> None:
    resource = kube.resource("v1", "ConfigMap")
    seen: list[str] = []
    # The API server sends a bookmark two seconds before a watch's timeout.
    informer = Informer(
        kube,
        resource,
        namespace=namespace,
        label_selector="test=informer",
        watch_timeout=4,
        on_event=lambda t, obj, old: seen.append(t),
    )
    informer.start()
    other: dict[str, Any] | None = None
    try:
        assert informer.wait_for_sync(30)
        listed = informer.resource_version
        other = kube.create(
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"generateName": "elsewhere-", "namespace": "default"},
            }
        )
        elsewhere = int(other["metadata"]["resourceVersion"])

        eventually(
            lambda: int(informer.resource_version or 0) >= elsewhere,
            what=f"a bookmark at or past {elsewhere} (listed at {listed})",
        )
        assert seen == []
    finally:
        informer.stop()
        if other is not None:
            kube.delete(resource, other["metadata"]["name"], "default")
