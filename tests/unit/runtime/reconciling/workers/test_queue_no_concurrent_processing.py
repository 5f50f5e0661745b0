"""One key is never processed by two workers at the same time."""

import threading

from engine.core.model.objects import Key
from engine.runtime.reconciling.workers.queue import WorkQueue


def test_key_being_processed_is_not_handed_to_a_second_worker() -> None:
    queue = WorkQueue()
    queue.add(Key("ns", "a"))
    first = queue.get(timeout=0)
    queue.add(Key("ns", "a"))  # an event for the same parent arrives mid-reconcile

    got: list[Key | None] = []
    second_worker = threading.Thread(target=lambda: got.append(queue.get(timeout=0.1)))
    second_worker.start()
    second_worker.join()

    assert first == Key("ns", "a")
    assert got == [None]
    assert queue.processing() == 1


def test_concurrent_workers_never_overlap_on_one_key() -> None:
    queue = WorkQueue()
    active: set[Key] = set()
    overlaps: list[Key] = []
    guard = threading.Lock()
    rounds = 200
    done_rounds = [0]

    def worker() -> None:
        while (key := queue.get(timeout=0.2)) is not None:
            with guard:
                if key in active:
                    overlaps.append(key)
                active.add(key)
            queue.add(key)  # keep re-adding while busy: the worst case for overlap
            with guard:
                active.discard(key)
            queue.done(key)
            with guard:
                done_rounds[0] += 1
                if done_rounds[0] >= rounds:
                    queue.shutdown()

    for key in (Key("ns", "a"), Key("ns", "b")):
        queue.add(key)
    workers = [threading.Thread(target=worker) for _ in range(4)]
    for thread in workers:
        thread.start()
    for thread in workers:
        thread.join(timeout=5)

    assert done_rounds[0] >= rounds
    assert overlaps == []
