"""The shipped OpenAPI snapshot comes from the Kubernetes version the project builds; after a version bump,
run hack/openapi-snapshot."""

from __future__ import annotations

from engine.core.offline import childschemas
from engine.localcluster import binaries


def test_snapshot_version_is_the_build_version() -> None:
    assert childschemas.snapshot_version() == binaries.KUBERNETES_VERSION, "run hack/openapi-snapshot"
