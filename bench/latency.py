"""Latencies of a contender, measured from outside: what a user waits for, not what the plane does.

- ``Children`` watches each parent's readiness child (a DeployWebService's Deployment, a
  Network's ConfigMap), so a run can tell the plane's time (create → child ready) from the
  contender's own (child ready → parent ``Ready``): the *lag*;
- ``spec_changes`` changes the spec of parents of a converged, idle set one at a time and
  times each change until the child shows it (P4); before the next change the parent reads
  ``Ready`` at its new generation (a Deployment's rollout is over), so each change finds the
  contender idle rather than busy with the rollouts of the changes before;
- ``paced`` creates parents at a given rate, half of the rate the contender just reached,
  and returns each one's create → Ready (P4's time to Ready at half of saturation).
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Any

from bench.workloads import Workload
from engine.runtime.cluster.kube import Kube, Resource
from engine.runtime.cluster.watching import Informer

if TYPE_CHECKING:
    from bench.converging import Readiness

CHANGE_TIMEOUT = 30.0
CHANGE_GAP = 0.1  # after a changed parent is Ready again: its status write's events are handled


class Children:
    """When each parent's readiness child first read ready, and when it last changed value."""

    def __init__(self, kube: Kube, workload: Workload, namespace: str) -> None:
        self.workload = workload
        self.ready_at: dict[str, float] = {}
        self._values: dict[str, Any] = {}
        self._changed = threading.Condition()
        api_version, kind, _ = workload.ready_child
        self._informer = Informer(
            kube, kube.resource(api_version, kind), namespace=namespace, on_event=self._on
        )
        self._informer.start()
        self._informer.wait_for_sync(60)

    def _on(self, type_: str, child: dict[str, Any], old: dict[str, Any] | None) -> None:
        parent = self.workload.parent_of(child)
        if parent is None or type_ == "DELETED":
            return
        now = time.monotonic()
        with self._changed:
            if self.workload.child_ready(child):
                self.ready_at.setdefault(parent, now)
            self._values[parent] = self.workload.child_value(child)
            self._changed.notify_all()

    def wait_for_value(self, parent: str, value: Any, timeout: float) -> float:
        """When the parent's child first showed ``value``; raises after ``timeout``."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while self._values.get(parent) != value:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"{parent}'s child does not show {value!r} after {timeout:.0f} s")
                self._changed.wait(left)
            return time.monotonic()

    def stop(self) -> None:
        self._informer.stop()


def lags(ready_at: dict[str, float], child_ready_at: dict[str, float]) -> list[float]:
    """Per parent, child ready → parent Ready, sorted (parents whose child was not seen left out)."""
    return sorted(
        max(0.0, ready_at[name] - child_ready_at[name]) for name in ready_at if name in child_ready_at
    )


def spec_changes(
    kube: Kube,
    resource: Resource,
    workload: Workload,
    namespace: str,
    names: list[str],
    children: Children,
    readiness: Readiness,
) -> list[float]:
    """Change each parent's spec in turn; seconds from sending the change to the child showing it.
    The next change waits for the parent to read Ready at the changed generation; a contender
    that does not say so within ``CHANGE_TIMEOUT`` is not waited for again, and timed all the same."""
    took: list[float] = []
    waits = True
    for k, name in enumerate(names):
        value = workload.change_value(k)
        sent = time.monotonic()
        changed = kube.request(
            "PATCH",
            resource.path(namespace, name),
            {"spec": {workload.change_field: value}},
            content_type="application/merge-patch+json",
        )
        took.append(children.wait_for_value(name, value, CHANGE_TIMEOUT) - sent)
        waits = waits and readiness.wait_generation(name, changed["metadata"]["generation"], CHANGE_TIMEOUT)
        time.sleep(CHANGE_GAP)
    return sorted(took)


def paced(
    kube: Kube, parents: list[dict[str, Any]], rate: float, ready_at: dict[str, float], timeout: float
) -> list[float]:
    """Create ``parents`` at ``rate`` per second (one sender, on a fixed schedule); each one's
    create → Ready, read from ``ready_at`` (filled by the run's readiness watch), sorted."""
    created: dict[str, float] = {}
    start = time.monotonic()
    for i, parent in enumerate(parents):
        time.sleep(max(0.0, start + i / rate - time.monotonic()))
        created[parent["metadata"]["name"]] = time.monotonic()
        kube.create(parent)
    deadline = time.monotonic() + timeout
    while any(name not in ready_at for name in created):
        if time.monotonic() > deadline:
            missing = sum(name not in ready_at for name in created)
            raise TimeoutError(f"{missing}/{len(created)} paced parents not Ready after {timeout:.0f} s")
        time.sleep(0.2)
    return sorted(ready_at[name] - created[name] for name in created)
