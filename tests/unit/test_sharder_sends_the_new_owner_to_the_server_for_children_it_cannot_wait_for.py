"""A parent assigned away from an owner that died, or reconciled before sharding was on, has
children no replica will relabel for its new owner: the sharder's assignment records that, so
the new owner reads them from the server.  A parent never reconciled has none to wait for."""

from __future__ import annotations

from typing import Any

import jsonpatch

from engine.core.decisions import sharding


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
