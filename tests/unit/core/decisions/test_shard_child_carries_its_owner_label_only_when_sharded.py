"""A sharded replica writes each child labelled with its own name; an unsharded engine writes the
child as rendered, so its identity and content hash are those of an engine without shards."""

from __future__ import annotations

import copy

from engine.core.decisions.coordination import sharding
from engine.core.decisions.plans import planning

CHILD = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "labels": {"x": "y"}}, "data": {}}


def test_unsharded_the_child_is_written_as_rendered() -> None:
    assert sharding.owned(copy.deepcopy(CHILD), None) == CHILD


def test_sharded_the_child_carries_its_owner_and_the_rendered_child_is_left_alone() -> None:
    rendered = copy.deepcopy(CHILD)
    written = sharding.owned(rendered, "a")
    assert sharding.labels_of(written) == {"x": "y", sharding.OWNER_LABEL: "a"}
    assert rendered == CHILD  # the plan's copy, whose hash is applied, has no owner label
    relabelled = {
        **written,
        "metadata": {**written["metadata"], "labels": {"x": "y", sharding.OWNER_LABEL: "b"}},
    }
    assert planning.contains(relabelled, CHILD)  # a child moved to another owner is not drift
