"""Work that only reports waits for an empty queue, or its bound: it never delays work that changes things."""

from engine.core.model.objects import Key
from engine.runtime.reconciling.workers.queue import WorkQueue


def test_a_key_added_when_idle_waits_behind_every_waiting_key() -> None:
    now = [0.0]
    queue = WorkQueue(clock=lambda: now[0])
    queue.add(Key("ns", "busy-1"))
    queue.add_when_idle(Key("ns", "report"), 30.0)
    queue.add(Key("ns", "busy-2"))

    handed = [queue.get(timeout=0) for _ in range(3)]

    assert handed == [Key("ns", "busy-1"), Key("ns", "busy-2"), Key("ns", "report")]
    assert queue.get(timeout=0) is None


def test_a_key_added_when_idle_is_handed_out_at_once_when_nothing_waits() -> None:
    queue = WorkQueue(clock=lambda: 0.0)
    queue.add_when_idle(Key("ns", "report"), 30.0)

    assert queue.get(timeout=0) == Key("ns", "report")


def test_its_bound_hands_it_out_though_the_queue_never_empties() -> None:
    now = [0.0]
    queue = WorkQueue(clock=lambda: now[0])
    queue.add_when_idle(Key("ns", "report"), 30.0)
    queue.add(Key("ns", "busy-1"))

    now[0] = 31.0
    assert queue.get(timeout=0) == Key("ns", "busy-1")  # the report fell due, and queued behind it
    queue.add(Key("ns", "busy-2"))
    assert queue.get(timeout=0) == Key("ns", "report")
    assert queue.get(timeout=0) == Key("ns", "busy-2")


def test_an_ordinary_add_takes_it_out_of_waiting_and_it_comes_once() -> None:
    now = [0.0]
    queue = WorkQueue(clock=lambda: now[0])
    queue.add(Key("ns", "busy"))
    queue.add_when_idle(Key("ns", "report"), 5.0)
    queue.add(Key("ns", "report"))

    assert [queue.get(timeout=0) for _ in range(2)] == [Key("ns", "busy"), Key("ns", "report")]
    queue.done(Key("ns", "report"))
    now[0] = 10.0  # its bound has passed: it must not come again
    assert queue.get(timeout=0) is None


def test_a_key_already_waiting_is_not_pushed_back_by_a_report() -> None:
    queue = WorkQueue(clock=lambda: 0.0)
    queue.add(Key("ns", "a"))
    queue.add(Key("ns", "b"))
    queue.add_when_idle(Key("ns", "a"), 30.0)

    assert [queue.get(timeout=0) for _ in range(2)] == [Key("ns", "a"), Key("ns", "b")]
    assert queue.get(timeout=0) is None


def test_a_report_for_a_key_already_coming_again_leaves_no_trace() -> None:
    now = [0.0]
    queue = WorkQueue(clock=lambda: now[0])
    queue.add(Key("ns", "a"))
    assert queue.get(timeout=0) == Key("ns", "a")
    queue.add(Key("ns", "a"))  # changed while processed: comes again after done
    queue.add_when_idle(Key("ns", "a"), 5.0)

    queue.done(Key("ns", "a"))
    assert queue.get(timeout=0) == Key("ns", "a")
    queue.done(Key("ns", "a"))
    now[0] = 10.0
    assert queue.get(timeout=0) is None
