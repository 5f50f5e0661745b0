"""A real local Kubernetes control plane, built from Go modules and run from Python.

``binaries`` finds or builds etcd, kube-apiserver and friends; ``pki`` makes the
certificates; ``plane.LocalCluster`` runs them and, with its controllers,
``storage``'s provisioner, which gives claims their volumes.  Users test their
own kinds with ``LocalCluster`` (or the pytest fixtures in ``engine.testing``).

The names below are loaded on first use rather than imported here, so that
``python -m engine.localcluster.binaries`` runs its module exactly once (runpy
warns when the package has imported it already) and a build needs no TLS
libraries.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.localcluster.binaries import BuildError
    from engine.localcluster.plane import ClusterError, LocalCluster, StartError

__all__ = ["BuildError", "ClusterError", "LocalCluster", "StartError"]

_HOMES = {"BuildError": "binaries", "ClusterError": "plane", "LocalCluster": "plane", "StartError": "plane"}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)
