"""Forgetting a key resets its backoff to the base delay."""

from engine.runtime.reconciling.queue import WorkQueue


def test_forget_resets_the_failure_count_and_the_next_delay() -> None:
    now = [0.0]
    queue = WorkQueue(base_delay=1.0, max_delay=100.0, clock=lambda: now[0])
    for _ in range(4):
        queue.add_rate_limited("ns/a")
    queue.forget("ns/a")
    now[0] += 1000.0
    assert queue.get(timeout=0) == "ns/a"
    queue.done("ns/a")

    queue.add_rate_limited("ns/a")
    now[0] += 0.999
    assert queue.get(timeout=0) is None
    now[0] += 0.001
    assert queue.get(timeout=0) == "ns/a"
    assert queue.num_requeues("ns/a") == 1
