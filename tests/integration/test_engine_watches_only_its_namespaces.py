"""An engine told to watch some namespaces serves parents there and leaves the rest alone."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from engine.runtime.cluster.kube import Kube, Resource
from engine.runtime.serving import manager
from engine.tools import manifests
from tests.integration._engine import ROOT, condition_is, eventually, idle, settled


@pytest.fixture
def namespaces(kube: Kube) -> Iterator[list[str]]:
    names = [f"scope-{uuid.uuid4().hex[:6]}-{i}" for i in range(3)]
    for name in names:
        kube.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
    yield names
    for name in names:
        kube.delete(kube.resource("v1", "Namespace"), name)


def parent() -> dict[str, object]:
    return {
        "apiVersion": "operator.wujiuye.com/v1beta1",
        "kind": "DeployWebService",
        "metadata": {"name": "web"},
        "spec": {"image": "nginx:1.27", "replicas": 1, "exposed_port": 80},
    }


def test_parents_outside_the_watched_namespaces_are_not_touched(
    kube: Kube, namespaces: list[str], dws: Resource
) -> None:
    watched, also_watched, elsewhere = namespaces
    options = manager.Options(namespaces=(watched, also_watched), workers=2, reload_interval=0.3)
    engine = manager.Engine(kube, ROOT / "templates", options)
    engine.start()
    try:
        for namespace in namespaces:
            manifests.apply_all(kube, [parent()], namespace)
        for namespace in (watched, also_watched):
            eventually(
                condition_is(kube, dws, "web", namespace, "Ready", "True"),
                what=f"Ready in {namespace}",
            )
        # The parent in `elsewhere` went in with the others: an engine that watched it too
        # has had its event by now, and once idle has reconciled it.
        eventually(settled(lambda: idle(engine), lambda: dict(engine.counters)), what="the engine to be idle")
        untouched = kube.get(dws, "web", elsewhere)
        # Untouched: the status is the CRD's default for a parent no engine has reconciled.
        assert untouched is not None and untouched.get("status") in (None, {"observedGeneration": 0})
        assert kube.get(kube.resource("apps/v1", "Deployment"), "web-deployment", elsewhere) is None
    finally:
        engine.stop()
