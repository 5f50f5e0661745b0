"""A relist (the informer's answer to 410 Gone) replaces the cache and reports what vanished.

The API server's watch cache serves even ``resourceVersion=1`` on a young
cluster, so a real 410 cannot be provoked here; the loop's reaction to Gone is
covered in ``tests/unit/testing/test_cache_informer_loop.py`` and this test runs the
relist itself against the real server.
"""

from __future__ import annotations

from typing import Any

from engine.runtime.cluster.kube import Kube
from engine.runtime.cluster.watching import Informer


def test_relist_reports_objects_deleted_while_the_informer_was_not_watching(
    kube: Kube, namespace: str
) -> None:
    resource = kube.resource("v1", "ConfigMap")
    for name in ("kept", "deleted"):
        kube.create(
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": name, "namespace": namespace},
                "data": {"name": name},
            }
        )
    seen: list[tuple[str, str]] = []

    def record(type_: str, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
        seen.append((type_, obj["metadata"]["name"]))

    informer = Informer(kube, resource, namespace=namespace, on_event=record)
    informer._relist()
    first = informer.resource_version
    kube.delete(resource, "deleted", namespace)
    informer._relist()

    ours = [event for event in seen if event[1] in ("kept", "deleted")]
    assert ours == [("ADDED", "deleted"), ("ADDED", "kept"), ("DELETED", "deleted")]
    assert informer.get(namespace, "deleted") is None
    assert informer.get(namespace, "kept") is not None
    assert informer.resource_version != first
