"""The built-in resources known offline are the discovery of the Kubernetes version the project builds
(after a version bump, run hack/openapi-snapshot): the same version as the build and the OpenAPI
snapshot, and every kind the snapshot has a schema for is a resource of the table, of one scope and
plural in every version of its group."""

from __future__ import annotations

from engine.core.model import apis
from engine.core.offline import childschemas
from engine.core.offline.childschemas.snapshot import read_snapshot
from engine.localcluster import binaries


def test_the_table_is_of_the_build_version() -> None:
    assert apis.KUBERNETES_VERSION == binaries.KUBERNETES_VERSION, "run hack/openapi-snapshot"
    assert childschemas.snapshot_version() == apis.KUBERNETES_VERSION


def test_every_kind_of_the_schema_snapshot_is_a_resource_of_the_table() -> None:
    kinds = {
        (api_version, kind) for api_version, by_kind in read_snapshot()["kinds"].items() for kind in by_kind
    }

    assert kinds - {(resource.api_version, resource.kind) for resource in apis.BUILTIN_RESOURCES} == set()


def test_a_kind_has_one_scope_and_plural_in_every_version_of_its_group() -> None:
    for resource in apis.BUILTIN_RESOURCES:
        group_kind = (apis.group_of(resource.api_version), resource.kind)
        assert apis.BUILTIN_KINDS[group_kind] == (resource.plural, resource.namespaced), resource
