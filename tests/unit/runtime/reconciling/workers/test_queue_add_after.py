"""Delayed keys come out in the order they fall due, not the order they were added."""

import threading

from engine.core.model.objects import Key
from engine.runtime.reconciling.workers.queue import WorkQueue


def test_delayed_keys_are_handed_out_when_due_in_due_order() -> None:
    now = [0.0]
    queue = WorkQueue(clock=lambda: now[0])
    queue.add_after(Key("ns", "late"), 3.0)
    queue.add_after(Key("ns", "early"), 1.0)
    queue.add_after(Key("ns", "middle"), 2.0)

    assert queue.get(timeout=0) is None
    now[0] = 10.0
    assert [queue.get(timeout=0) for _ in range(3)] == [
        Key("ns", "early"),
        Key("ns", "middle"),
        Key("ns", "late"),
    ]


def test_a_key_scheduled_twice_falls_due_at_the_earlier_time() -> None:
    now = [0.0]
    queue = WorkQueue(clock=lambda: now[0])
    queue.add_after(Key("ns", "a"), 5.0)
    queue.add_after(Key("ns", "a"), 1.0)
    queue.add_after(Key("ns", "a"), 9.0)

    now[0] = 1.0
    assert queue.get(timeout=0) == Key("ns", "a")
    queue.done(Key("ns", "a"))
    now[0] = 20.0
    assert queue.get(timeout=0) is None


def test_blocked_getter_wakes_when_a_delayed_key_falls_due() -> None:
    queue = WorkQueue()
    got: list[str | None] = []
    getter = threading.Thread(target=lambda: got.append(queue.get(timeout=1.0)))
    getter.start()
    queue.add_after(Key("ns", "a"), 0.05)
    getter.join()

    assert got == [Key("ns", "a")]


def test_zero_delay_adds_at_once() -> None:
    queue = WorkQueue(clock=lambda: 0.0)
    queue.add_after(Key("ns", "a"), 0)

    assert queue.get(timeout=0) == Key("ns", "a")
