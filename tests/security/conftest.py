"""The security tier runs on the integration tier's fixtures (the CRDs installed once, the Widget
and DeployWebService resources), and makes the other namespaces an attack needs: another tenant's,
the engine's own and the kind ConfigMaps'."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from engine.runtime.cluster.kube import Kube
from tests.integration.conftest import crds_installed, dws, widgets

__all__ = ["crds_installed", "dws", "engine_namespace", "kinds_namespace", "tenant_b", "widgets"]


def _namespace(kube: Kube, prefix: str) -> Iterator[str]:
    name = f"{prefix}-{uuid.uuid4().hex[:8]}"
    kube.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
    yield name
    kube.delete(kube.resource("v1", "Namespace"), name)


@pytest.fixture
def tenant_b(kube: Kube) -> Iterator[str]:
    """A second tenant's namespace, deleted after the test."""
    yield from _namespace(kube, "tenant-b")


@pytest.fixture
def engine_namespace(kube: Kube) -> Iterator[str]:
    """The engine's own namespace, where its seed key is kept; deleted after the test."""
    yield from _namespace(kube, "engine")


@pytest.fixture
def kinds_namespace(kube: Kube) -> Iterator[str]:
    """Where the kind ConfigMaps go: a namespace of their own, protected from children."""
    yield from _namespace(kube, "kinds")
