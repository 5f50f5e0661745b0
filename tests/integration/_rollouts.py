"""A Network kind with a rollout, 200 parents of it, and what the rollout tests read of them."""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.runtime.cluster.kube import Kube, Resource
from engine.runtime.reconciling import revisions
from tests.integration._engine import ROOT, conditions, eventually

PARENTS = 200
ROLLOUT = "rollout:\n  maxUnavailable: 10%\n  progressDeadline: {deadline}\n"


def network_kind(
    root: Path, name: str, *, deadline: str = "60s", shipped: str = "network", budget: str = ""
) -> Path:
    """A shipped kind (the Network by default) as ``root/name``, declaring a rollout of 10% at once
    (and ``budget``, more of ``rollout:``, e.g. ``maxFailures: 0``)."""
    folder = root / name
    ignored = shutil.ignore_patterns("examples", "tests")
    shutil.copytree(ROOT / "templates" / shipped, folder, ignore=ignored)
    kind_yaml = folder / "kind.yaml"
    extra = f"  {budget}\n" if budget else ""
    kind_yaml.write_text(kind_yaml.read_text() + ROLLOUT.format(deadline=deadline) + extra)
    return folder


def change(folder: Path, old: str, new: str, file: str = "configmap.yaml") -> None:
    """Edit one of the kind's files, as an author's commit would."""
    path = folder / file
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new))


def create_networks(kube: Kube, networks: Resource, namespace: str, count: int = PARENTS) -> list[str]:
    names = [f"net-{i:03d}" for i in range(count)]
    for i, name in enumerate(names):
        kube.create(
            {
                "apiVersion": "samplecrd.k8s.io/v1",
                "kind": "Network",
                "metadata": {"name": name, "namespace": namespace},
                "spec": {"cidr": f"10.{i // 250}.{i % 250}.0/24", "gateway": f"10.{i // 250}.{i % 250}.1"},
            }
        )
    return names


def revision_of(parent: dict[str, Any]) -> int | None:
    record = (parent.get("status") or {}).get("kindRevision") or {}
    number = record.get("number")
    return number if isinstance(number, int) else None


def ready(parent: dict[str, Any]) -> bool:
    found = conditions(parent).get("Ready") or {}
    generation = parent["metadata"].get("generation")
    return (
        found.get("status") == "True" and (parent.get("status") or {}).get("observedGeneration") == generation
    )


def all_at(kube: Kube, networks: Resource, namespace: str, revision: int, timeout: float = 120.0) -> None:
    def probe() -> bool:
        items, _ = kube.list(networks, namespace)
        return len(items) == PARENTS and all(revision_of(p) == revision and ready(p) for p in items)

    eventually(probe, timeout=timeout, what=f"every Network Ready at revision {revision}")


def configmaps(kube: Kube, namespace: str) -> dict[str, dict[str, Any]]:
    items, _ = kube.list(kube.resource("v1", "ConfigMap"), namespace)
    return {c["metadata"]["name"]: c for c in items if c["metadata"]["name"].endswith("-network")}


def kind_rollout(kube: Kube, name: str) -> dict[str, Any] | None:
    return kube.get(kube.resource(revisions.GROUP_VERSION, revisions.ROLLOUT_KIND), name)


def delete_kind_rollout(kube: Kube, name: str) -> None:
    kube.delete(kube.resource(revisions.GROUP_VERSION, revisions.ROLLOUT_KIND), name)


@dataclass
class Watch:
    """The Networks sampled every 0.2 s while a rollout runs: how many moved and not Ready yet."""

    samples: list[tuple[float, int, int]] = field(default_factory=list)  # (seconds, moving, at target)
    records: dict[str, set[tuple[int | None, str]]] = field(default_factory=dict)  # each kindRevision seen

    @property
    def most_moving(self) -> int:
        return max((moving for _, moving, _ in self.samples), default=0)


@contextmanager
def sampling(kube: Kube, networks: Resource, namespace: str, target: int) -> Iterator[Watch]:
    """Count, every 0.2 s and once more at the end, the parents at ``target`` and those of them not
    Ready (moving): the last sample holds what the block saw last, the moves of its last 0.2 s too."""
    watch, stop, start = Watch(), threading.Event(), time.monotonic()

    def sample() -> None:
        items, _ = kube.list(networks, namespace)
        at = [p for p in items if revision_of(p) == target]
        for p in items:
            record = (p.get("status") or {}).get("kindRevision") or {}
            seen = (revision_of(p), record.get("since", ""))
            watch.records.setdefault(p["metadata"]["name"], set()).add(seen)
        watch.samples.append((time.monotonic() - start, sum(not ready(p) for p in at), len(at)))

    def run() -> None:
        while not stop.is_set():
            sample()
            stop.wait(0.2)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        yield watch
    finally:
        stop.set()
        thread.join()
    sample()
