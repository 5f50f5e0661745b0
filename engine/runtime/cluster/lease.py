"""The Lease an elector campaigns for, over HTTP: read it, create it, write it back.

These are the only requests of leader election (``engine.runtime.serving.leader``), kept apart from
the loop that decides when to send them.  Each one takes the time it may wait, because
the elector must never let a request run past its renew deadline: one that hangs is as
good as failed.  An update is a PUT carrying the ``resourceVersion`` it read, never an
apply or a patch, so that of two candidates racing to write the same version one wins
and the other gets a 409.  The spec written is the elector's record (``LeaseRecord.to_spec``)
laid over the spec read, so fields of the Lease that leader election does not know survive;
annotations given (a kind's claim names its heartbeat in one) are laid over those read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core.model import errors
from engine.runtime.cluster.kube import FIELD_MANAGER, Kube, Resource

LEASE_API_VERSION = "coordination.k8s.io/v1"


class Lease:
    """One Lease, ``namespace/name``, as the elector reads and writes it."""

    def __init__(
        self, kube: Kube, namespace: str, name: str, labels: Mapping[str, str] | None = None
    ) -> None:
        self.kube = kube
        self.namespace = namespace
        self.name = name
        self._labels = dict(labels or {})  # on the Lease when this elector creates it
        self._resource: Resource | None = None

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    def _res(self) -> Resource:
        if self._resource is None:
            self._resource = self.kube.resource(LEASE_API_VERSION, "Lease")
        return self._resource

    def get(self, timeout: float) -> dict[str, Any] | None:
        """The Lease, or None if there is none."""
        try:
            lease: dict[str, Any] = self.kube.request(
                "GET", self._res().path(self.namespace, self.name), timeout=timeout
            )
        except errors.NotFound:
            return None
        return lease

    def create(
        self, spec: dict[str, Any], timeout: float, annotations: Mapping[str, str] | None = None
    ) -> dict[str, Any]:
        """Create the Lease with ``spec``; a 409 if another candidate created it first."""
        meta = {"name": self.name, "namespace": self.namespace, "labels": self._labels}
        body = {
            "apiVersion": LEASE_API_VERSION,
            "kind": "Lease",
            "metadata": {**meta, "annotations": dict(annotations)} if annotations else meta,
            "spec": spec,
        }
        created: dict[str, Any] = self.kube.request(
            "POST",
            self._res().path(self.namespace),
            body,
            query={"fieldManager": FIELD_MANAGER},
            timeout=timeout,
        )
        return created

    def update(
        self,
        lease: dict[str, Any],
        spec: dict[str, Any],
        timeout: float,
        annotations: Mapping[str, str] | None = None,
    ) -> dict[str, Any]:
        """Write ``spec`` over the spec of ``lease`` as read; a 409 if the Lease changed since."""
        meta = lease["metadata"]
        body = {
            "apiVersion": LEASE_API_VERSION,
            "kind": "Lease",
            "metadata": {
                "name": self.name,
                "namespace": self.namespace,
                "resourceVersion": meta["resourceVersion"],
                "labels": meta.get("labels") or {},
                "annotations": {**(meta.get("annotations") or {}), **(annotations or {})},
            },
            "spec": {**(lease.get("spec") or {}), **spec},
        }
        updated: dict[str, Any] = self.kube.request(
            "PUT",
            self._res().path(self.namespace, self.name),
            body,
            query={"fieldManager": FIELD_MANAGER},
            timeout=timeout,
        )
        return updated
