"""A key added while it is processed comes back once the worker is done."""

from engine.core.model.objects import Key
from engine.runtime.reconciling.workers.queue import WorkQueue


def test_key_added_during_processing_is_queued_again_after_done() -> None:
    queue = WorkQueue()
    queue.add(Key("ns", "a"))
    key = queue.get(timeout=0)
    queue.add(Key("ns", "a"))
    queue.add(Key("ns", "a"))

    assert len(queue) == 0
    queue.done(Key("ns", "a"))

    assert key == Key("ns", "a")
    assert len(queue) == 1
    assert queue.get(timeout=0) == Key("ns", "a")
    queue.done(Key("ns", "a"))
    assert queue.get(timeout=0) is None


def test_key_not_added_during_processing_is_not_queued_again() -> None:
    queue = WorkQueue()
    queue.add(Key("ns", "a"))
    queue.get(timeout=0)
    queue.done(Key("ns", "a"))

    assert len(queue) == 0
    assert queue.get(timeout=0) is None
