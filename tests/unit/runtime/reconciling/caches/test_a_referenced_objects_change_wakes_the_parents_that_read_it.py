"""A change to a referenced object wakes exactly the parents that read it: by its name, or by a
selector it matches before or after the change (a label removed wakes the parent that read it);
a parent that no longer reads it, or is gone, is not woken; nor is a parent reading it as
another account, whose watch says what that account sees."""

from __future__ import annotations

from engine.core.decisions import referencing
from engine.core.model.identity import ChildId
from engine.core.model.objects import Key
from engine.runtime.cluster.informers import InformerSet
from engine.runtime.cluster.watching import MODIFIED
from engine.runtime.reconciling.caches.referenced import Referenced
from engine.runtime.reconciling.workers.queue import WorkQueue
from tests.unit import _references as refs

READER = "system:serviceaccount:shop:stencil-reader"
BY_NAME = referencing.Target("config", ChildId("", "v1", "ConfigMap", "shop", "shared"), reader=READER)
OTHER = referencing.Target("x", ChildId("", "v1", "ConfigMap", "shop", "other"), reader=READER)
BY_SELECTOR = referencing.Target(
    "team", ChildId("", "v1", "ConfigMap", "shop", ""), (("team", "a"),), reader=READER
)


def _referenced() -> Referenced:
    # No cache is made here: only the routing of events is tried, with no server behind it.
    return Referenced(None, InformerSet(None), 0.0)  # type: ignore[arg-type]


def _woken(queue: WorkQueue) -> list[Key]:
    woken = []
    while queue.depth:
        key = queue.get()
        assert key is not None
        woken.append(key)
        queue.done(key)
    return sorted(woken)


def test_an_object_wakes_the_parents_reading_it_by_name_or_selector() -> None:
    referenced, queue = _referenced(), WorkQueue()
    referenced.forget(queue, Key("shop", "by-name"), keep=[BY_NAME])
    referenced.forget(queue, Key("shop", "by-team"), keep=[BY_SELECTOR])
    referenced.forget(queue, Key("shop", "unrelated"), keep=[OTHER])

    referenced._on_event(READER, MODIFIED, refs.config_map("shared"), None)
    assert _woken(queue) == [Key("shop", "by-name")]
    referenced._on_event(READER, MODIFIED, refs.config_map("b", team="b"), refs.config_map("b", team="a"))
    assert _woken(queue) == [Key("shop", "by-team")]
    referenced._on_event(READER, MODIFIED, refs.config_map("shared", namespace="other"), None)
    assert _woken(queue) == []


def test_an_object_seen_as_another_account_wakes_no_parent_reading_it_as_its_own() -> None:
    referenced, queue = _referenced(), WorkQueue()
    referenced.forget(queue, Key("shop", "by-name"), keep=[BY_NAME])
    referenced.forget(queue, Key("shop", "by-team"), keep=[BY_SELECTOR])
    other = "system:serviceaccount:shop:other-reader"
    referenced._on_event(other, MODIFIED, refs.config_map("shared", team="a"), None)
    assert _woken(queue) == []


def test_a_parent_that_no_longer_reads_an_object_is_not_woken() -> None:
    referenced, queue = _referenced(), WorkQueue()
    referenced.forget(queue, Key("shop", "a"), keep=[BY_NAME, BY_SELECTOR])
    referenced.forget(queue, Key("shop", "a"))
    referenced._on_event(READER, MODIFIED, refs.config_map("shared", team="a"), None)
    assert _woken(queue) == []
