"""Forgetting a key resets its backoff to the base delay."""

from engine.core.model.objects import Key
from engine.runtime.reconciling.workers.queue import WorkQueue


def test_forget_resets_the_failure_count_and_the_next_delay() -> None:
    now = [0.0]
    queue = WorkQueue(base_delay=1.0, max_delay=100.0, clock=lambda: now[0])
    for _ in range(4):
        queue.add_rate_limited(Key("ns", "a"))
    queue.forget(Key("ns", "a"))
    now[0] += 1000.0
    assert queue.get(timeout=0) == Key("ns", "a")
    queue.done(Key("ns", "a"))

    queue.add_rate_limited(Key("ns", "a"))
    now[0] += 0.999
    assert queue.get(timeout=0) is None
    now[0] += 0.001
    assert queue.get(timeout=0) == Key("ns", "a")
    assert queue.num_requeues(Key("ns", "a")) == 1
