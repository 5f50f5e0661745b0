"""pytest fixtures that run tests against a real local control plane.

Opt-in: a project enables them with ``pytest_plugins = ["engine.testing.plugin"]``
in its top-level ``conftest.py``, or ``pytest -p engine.testing.plugin``.  (An
entry point would switch them on, and mark tests, in every project that merely
has Stencil installed.)  The fixtures:

- ``local_cluster`` (session): one ``LocalCluster`` with controllers, a
  scheduler and one kwok node, started on first use and stopped at the end of
  the session.  It is the full plane because the behaviours worth testing
  (garbage collection, Deployments becoming Available) need the controllers;
  they add under a second to a start-up of about three.
- ``kube``: an ``engine.runtime.cluster.kube.Kube`` for that cluster, new per test so that no
  discovery cache outlives the CRDs one test installs; closed after it.
- ``connect``: makes a ``Kube`` for any kubeconfig (another plane's, a
  ServiceAccount's), each closed after the test.
- ``namespace``: a fresh namespace per test, usable for pods (its ``default``
  ServiceAccount exists), deleted afterwards.

Every test that uses one of them gets the ``cluster`` marker, so
``pytest -m "not cluster"`` is the tier that needs no binaries.  A missing
binary is an error, never a skip: a suite that silently skips its integration
tests proves nothing.
"""

from __future__ import annotations

import contextlib
import re
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.core.model import errors
from engine.localcluster import LocalCluster
from engine.runtime.cluster.kube import Kube
from engine.testing import wait_until

CLUSTER_FIXTURES = frozenset({"local_cluster", "kube", "namespace"})


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "cluster: uses the local control plane (etcd + kube-apiserver)")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if CLUSTER_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.cluster)


@pytest.fixture(scope="session")
def local_cluster() -> Iterator[LocalCluster]:
    with LocalCluster(nodes=1) as cluster:
        yield cluster


@pytest.fixture
def kube(local_cluster: LocalCluster) -> Iterator[Kube]:
    # A component that died earlier in the session should fail the test with
    # its log, not with "connection refused".
    local_cluster.check()
    with contextlib.closing(Kube.from_kubeconfig(str(local_cluster.kubeconfig))) as client:
        yield client  # closed after the test: no socket is left for the collector to warn of


@pytest.fixture
def connect() -> Iterator[Callable[..., Kube]]:
    with contextlib.ExitStack() as opened:

        def connected(kubeconfig: str | Path, **kw: Any) -> Kube:
            return opened.enter_context(contextlib.closing(Kube.from_kubeconfig(str(kubeconfig), **kw)))

        yield connected


@pytest.fixture
def namespace(kube: Kube, request: pytest.FixtureRequest) -> Iterator[str]:
    name = namespace_name(request.node.name)
    body = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}
    kube.request("POST", "/api/v1/namespaces", body)
    wait_until(
        lambda: _exists(kube, f"/api/v1/namespaces/{name}/serviceaccounts/default"),
        timeout=30,
        what=f"the default ServiceAccount in namespace {name}",
    )
    yield name
    # Not waited for: namespace finalization takes seconds and nothing reuses the name.
    with contextlib.suppress(errors.NotFound):
        kube.request("DELETE", f"/api/v1/namespaces/{name}")


def namespace_name(test_name: str) -> str:
    """A DNS-label namespace name that says which test made it, unique per call."""
    slug = re.sub(r"[^a-z0-9]+", "-", test_name.lower().removeprefix("test_")).strip("-")
    return f"t-{slug[:48].rstrip('-')}-{uuid.uuid4().hex[:6]}"


def _exists(kube: Kube, path: str) -> bool:
    try:
        kube.request("GET", path)
    except errors.NotFound:
        return False
    return True
