"""The informer set keeps one informer per selection and shares it between users."""

from __future__ import annotations

from engine.runtime.cluster.informers import InformerSet
from engine.runtime.cluster.kube import Kube


def test_ensure_shares_one_informer_and_replays_the_cache_to_a_late_handler(
    kube: Kube, namespace: str
) -> None:
    resource = kube.resource("v1", "ConfigMap")
    kube.create(
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "a", "namespace": namespace, "labels": {"test": "informer"}},
        }
    )
    first: list[str] = []
    late: list[str] = []
    informers = InformerSet(kube)
    try:
        informer = informers.ensure(
            resource,
            namespace=namespace,
            label_selector="test=informer",
            on_event=lambda t, obj, old: first.append(f"{t} {obj['metadata']['name']}"),
        )
        assert informers.wait_for_sync(30)
        again = informers.ensure(
            resource,
            namespace=namespace,
            label_selector="test=informer",
            on_event=lambda t, obj, old: late.append(f"{t} {obj['metadata']['name']}"),
        )
        other = informers.ensure(resource, namespace=namespace, label_selector="test=other")

        assert again is informer
        assert other is not informer
        assert len(informers) == 2
        assert first == ["ADDED a"]
        assert late == ["ADDED a"]
        assert informers.wait_for_sync(30)
        assert informers.synced()
    finally:
        informers.stop_all()
    assert informer.stopped
    assert len(informers) == 0
