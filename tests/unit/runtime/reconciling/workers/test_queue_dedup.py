"""A key added several times while it waits is handed out once."""

from engine.core.model.objects import Key
from engine.runtime.reconciling.workers.queue import WorkQueue


def test_key_added_repeatedly_while_waiting_is_handed_out_once() -> None:
    queue = WorkQueue()
    for _ in range(3):
        queue.add(Key("ns", "a"))
    queue.add(Key("ns", "b"))

    assert len(queue) == 2
    assert queue.get(timeout=0) == Key("ns", "a")
    assert queue.get(timeout=0) == Key("ns", "b")
    assert queue.get(timeout=0) is None
