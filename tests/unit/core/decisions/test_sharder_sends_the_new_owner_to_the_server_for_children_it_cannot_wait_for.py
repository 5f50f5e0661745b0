"""A parent assigned away from an owner that died, or reconciled before sharding was on, has
children no replica will relabel for its new owner: the sharder's assignment records that, so
the new owner reads them from the server.  A parent never reconciled has none to wait for."""

from __future__ import annotations

from typing import Any

import jsonpatch

from engine.core.decisions.coordination import sharding


def parent(owner: str | None, status: bool) -> dict[str, Any]:
    labels = {sharding.OWNER_LABEL: owner} if owner else {}
    thing: dict[str, Any] = {"metadata": {"name": "n", "uid": "u", "resourceVersion": "7", "labels": labels}}
    if status:
        thing["status"] = {"observedGeneration": 1}
    return thing


def assigned(thing: dict[str, Any], live: frozenset[str]) -> dict[str, Any]:
    owner = sharding.labels_of(thing).get(sharding.OWNER_LABEL)
    decision = sharding.decide(owner, False, "b", live)
    assert decision.step is sharding.Step.ASSIGN
    ops = sharding.sharder_patch(thing, decision)
    assert ops is not None
    result: dict[str, Any] = jsonpatch.apply_patch(thing, ops)
    return result


def test_a_parent_whose_owner_died_is_assigned_with_its_children_to_be_read() -> None:
    moved = assigned(parent("a", status=True), frozenset({"b"}))
    assert sharding.labels_of(moved)[sharding.OWNER_LABEL] == "b"
    assert sharding.arrival(moved, "b") is None


def test_a_parent_reconciled_before_sharding_is_assigned_with_its_children_to_be_read() -> None:
    assert sharding.arrival(assigned(parent(None, status=True), frozenset({"b"})), "b") is None


def test_a_new_parent_is_assigned_with_nothing_to_wait_for() -> None:
    fresh = assigned(parent(None, status=False), frozenset({"b"}))
    assert sharding.arrival(fresh, "b") == 0
    assert "annotations" not in fresh["metadata"]


def test_a_parent_whose_owner_died_letting_go_has_its_children_read_by_their_parent() -> None:
    thing = parent("a", status=True)
    thing["metadata"]["labels"][sharding.DRAIN_LABEL] = "c"
    decision = sharding.decide("a", True, "b", frozenset({"b", "c"}))
    ops = sharding.sharder_patch(thing, decision)
    assert ops is not None
    moved = jsonpatch.apply_patch(thing, ops)
    assert moved["metadata"]["annotations"][sharding.HANDED_OVER] == ""  # some may be labelled c by now


def metadata_only(*entries: dict[str, Any]) -> dict[str, Any]:
    """A parent as a metadata list gives it (no spec, no status), as the sharder keeps it."""
    meta: dict[str, Any] = {"name": "n", "uid": "u", "resourceVersion": "7", "labels": {}}
    if entries:
        meta["managedFields"] = list(entries)
    thing = {"apiVersion": "meta.k8s.io/v1", "kind": "PartialObjectMetadata", "metadata": meta}
    return sharding.as_sharder_keeps(thing)


CREATED = {"manager": "kubectl", "operation": "Update", "fieldsV1": {"f:spec": {"f:cidr": {}}}}
STATUS_WRITTEN = {"manager": "stencil", "operation": "Apply", "subresource": "status", "fieldsV1": {}}
STATUS_OWNED = {"manager": "old", "operation": "Update", "fieldsV1": {"f:status": {".": {}}}}


def test_the_sharders_cache_tells_a_reconciled_parent_by_its_managed_fields() -> None:
    fresh = metadata_only(CREATED)
    assert "status" not in fresh and "managedFields" not in fresh["metadata"]
    assert sharding.arrival(assigned(fresh, frozenset({"b"})), "b") == 0
    for written in (STATUS_WRITTEN, STATUS_OWNED):  # the status subresource's entry, or f:status owned
        reconciled = metadata_only(CREATED, written)
        assert reconciled["status"] == {}
        assert sharding.arrival(assigned(reconciled, frozenset({"b"})), "b") is None


def test_a_parent_with_no_managed_fields_to_tell_by_has_its_children_read() -> None:
    assert sharding.arrival(assigned(metadata_only(), frozenset({"b"})), "b") is None


def test_a_whole_parent_keeps_whether_it_has_a_status_and_nothing_beyond_its_metadata() -> None:
    kept = sharding.as_sharder_keeps({**parent(None, status=True), "spec": {"cidr": "10.0.0.0/16"}})
    assert kept["status"] == {} and "spec" not in kept
    assert "status" not in sharding.as_sharder_keeps(
        {**parent(None, status=False), "metadata": {"managedFields": [CREATED], "name": "n"}}
    )
