"""Two ``stencil run`` engines on the local control plane, each with kinds of its own choosing,
and what they say of the kinds' Leases: who holds each kind, in the metrics, logs and Events.

The engines are processes (``_process.engine_process``) with short Lease timings, so that a
hand-over is quick, and JSON logs; each kind folder is copied from ``templates/``."""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from engine.core.decisions.coordination import holding
from engine.runtime.cluster.kube import Kube
from tests.integration._engine import ROOT, eventually
from tests.integration._process import EngineProcess, engine_process
from tests.integration._shards import log_lines

LEASE_DURATION = 4.0
RENEW_DEADLINE = 3.0
RETRY_PERIOD = 0.5
NETWORK_LEASE = holding.lease_name("samplecrd.k8s.io/v1", "Network")
DWS_LEASE = holding.lease_name("operator.wujiuye.com/v1beta1", "DeployWebService")


def kinds(directory: Path, *names: str) -> Path:
    """A templates folder holding copies of the kind folders ``names`` of ``templates/``."""
    for name in names:
        shutil.copytree(ROOT / "templates" / name, directory / name)
    return directory


@contextlib.contextmanager
def engine(
    kubeconfig: Path, logs: Path, namespace: str, identity: str, templates: Path, *more: str
) -> Iterator[EngineProcess]:
    """``stencil run`` named ``identity`` serving ``templates`` in ``namespace``, where its kinds'
    Leases are too (the first namespace watched), with the flags ``more``, once ready; its log is
    printed if the block fails."""
    args = [
        "--templates", str(templates),
        "--namespace", namespace,
        "--engine-identity", identity,
        "--leader-elect-lease-duration", str(LEASE_DURATION),
        "--leader-elect-renew-deadline", str(RENEW_DEADLINE),
        "--leader-elect-retry-period", str(RETRY_PERIOD),
        *more,
    ]  # fmt: skip
    with engine_process(kubeconfig, logs / f"{identity}.log", *args) as process:
        try:
            eventually(process.ready, what=f"/readyz of {identity}")
            yield process
        except BaseException:
            print(f"--- {identity} ---\n{process.output()[-20000:]}")
            raise


def holds(engine: EngineProcess, lease: str) -> list[float]:
    """``leader_election_master_status`` of the kind's Lease on this engine: [1.0] holding, [0.0]
    standing by, [] not serving the kind at all."""
    return engine.metric("leader_election_master_status", name=lease)


def holder(kube: Kube, namespace: str, lease: str) -> str:
    found = kube.get(kube.resource("coordination.k8s.io/v1", "Lease"), lease, namespace)
    return str(((found or {}).get("spec") or {}).get("holderIdentity") or "")


def version(kube: Kube, namespace: str, lease: str) -> str:
    """The Lease's resourceVersion: it moves with every write of it, and only then."""
    found = kube.get(kube.resource("coordination.k8s.io/v1", "Lease"), lease, namespace)
    return str(((found or {}).get("metadata") or {}).get("resourceVersion") or "")


def writes(engine: EngineProcess, controller: str) -> float:
    """The parents' statuses and the children this engine wrote for the kind, by its own count."""
    return sum(engine.metric("stencil_status_writes_total", kind=controller)) + sum(
        engine.metric("stencil_applies_total")
    )


def reconciles(engine: EngineProcess, controller: str) -> float:
    return sum(engine.metric("controller_runtime_reconcile_total", controller=controller))


def said(engine: EngineProcess, lease: str) -> list[dict[str, Any]]:
    """This engine's log lines about who holds the kind's Lease."""
    return [line for line in log_lines(engine) if str(line.get("lease", "")).endswith(f"/{lease}")]


def lease_events(kube: Kube, namespace: str, lease: str) -> list[dict[str, Any]]:
    items, _ = kube.list(kube.resource("v1", "Event"), namespace)
    return [e for e in items if (e.get("involvedObject") or {}).get("name") == lease]
