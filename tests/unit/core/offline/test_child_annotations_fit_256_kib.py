"""A child's annotations total at most 256 KiB, keys and values counted, as the API server counts them."""

from __future__ import annotations

from engine.core.offline import childschemas
from tests.unit._schema_children import configmap, errors_at

LIMIT = 256 * 1024


def annotated(size: int) -> dict[str, object]:
    """A ConfigMap whose annotations take ``size`` bytes."""
    child = configmap()
    child["metadata"]["annotations"] = {"a": "x" * (size - 1)}
    return child


def test_annotations_of_256_kib_fit() -> None:
    assert childschemas.check(annotated(LIMIT)) == []


def test_one_byte_more_is_refused() -> None:
    assert errors_at(childschemas.check(annotated(LIMIT + 1))) == {("metadata", "annotations")}


def test_an_annotation_key_is_a_qualified_name() -> None:
    child = configmap()
    child["metadata"]["annotations"] = {"checksum/config map": "abc"}

    assert errors_at(childschemas.check(child)) == {("metadata", "annotations", "checksum/config map")}
