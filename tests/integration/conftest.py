from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from engine.runtime.cluster.kube import Kube, Resource
from engine.tools import manifests
from tests.integration._engine import ROOT, cordon


@pytest.fixture(scope="session")
def crds_installed(local_cluster: Any) -> list[str]:
    """Every CRD under crds/, those the kinds under templates/ write from their schema:, and the
    tests' own, installed once, Established."""
    with contextlib.closing(Kube.from_kubeconfig(str(local_cluster.kubeconfig))) as kube:
        names = manifests.install_project_crds(kube, ROOT)
        names += manifests.install_crds(kube, ROOT / "tests" / "integration" / "fixtures")
    return names


@pytest.fixture
def dws(kube: Kube, crds_installed: list[str]) -> Resource:
    return kube.resource("operator.wujiuye.com/v1beta1", "DeployWebService")


@pytest.fixture
def widgets(kube: Kube, crds_installed: list[str]) -> Resource:
    return kube.resource("tests.stencil.dev/v1", "Widget")


@pytest.fixture
def other_namespace(kube: Kube) -> Iterator[str]:
    """A namespace of the test's own beside ``namespace``, deleted after it."""
    name = f"other-{uuid.uuid4().hex[:8]}"
    kube.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
    yield name
    kube.delete(kube.resource("v1", "Namespace"), name)


@pytest.fixture
def cordoned(kube: Kube) -> Iterator[list[str]]:
    """Every node marked unschedulable, so no new pod starts, until the test uncordons them;
    uncordoned again on the way out whatever happens."""
    with cordon(kube) as names:
        yield names
