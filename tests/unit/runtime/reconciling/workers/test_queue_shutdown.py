"""Shutting the queue down releases every blocked worker."""

import threading

from engine.core.model.objects import Key
from engine.runtime.reconciling.workers.queue import WorkQueue


def test_shutdown_unblocks_getters_waiting_without_timeout() -> None:
    queue = WorkQueue()
    got: list[str | None] = []
    workers = [threading.Thread(target=lambda: got.append(queue.get())) for _ in range(3)]
    for thread in workers:
        thread.start()
    queue.shutdown()
    for thread in workers:
        thread.join(timeout=1.0)

    assert [thread.is_alive() for thread in workers] == [False, False, False]
    assert got == [None, None, None]


def test_queue_hands_out_nothing_and_accepts_nothing_after_shutdown() -> None:
    queue = WorkQueue()
    queue.add(Key("ns", "a"))
    queue.shutdown()
    queue.add(Key("ns", "b"))

    assert queue.get(timeout=0) is None
    assert queue.shutting_down
