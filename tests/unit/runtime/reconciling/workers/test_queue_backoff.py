"""Rate-limited re-adds back off exponentially per key, up to the cap."""

from engine.core.model.objects import Key
from engine.runtime.reconciling.workers.queue import WorkQueue


def test_rate_limited_delay_doubles_per_failure_up_to_the_cap() -> None:
    now = [0.0]
    queue = WorkQueue(base_delay=0.5, max_delay=3.0, clock=lambda: now[0])
    delays: list[float] = []
    for _ in range(5):
        added = now[0]
        queue.add_rate_limited(Key("ns", "a"))
        while queue.get(timeout=0) is None:
            now[0] += 0.25
        delays.append(now[0] - added)
        queue.done(Key("ns", "a"))

    assert delays == [0.5, 1.0, 2.0, 3.0, 3.0]
    assert queue.num_requeues(Key("ns", "a")) == 5


def test_backoff_is_counted_per_key() -> None:
    queue = WorkQueue(base_delay=1.0, max_delay=100.0, clock=lambda: 0.0)
    for _ in range(3):
        queue.add_rate_limited(Key("ns", "a"))
    queue.add_rate_limited(Key("ns", "b"))

    assert queue.num_requeues(Key("ns", "a")) == 3
    assert queue.num_requeues(Key("ns", "b")) == 1


def test_backoff_of_a_very_long_failing_key_stays_at_the_cap() -> None:
    queue = WorkQueue(base_delay=0.005, max_delay=300.0)

    assert queue.backoff(10_000) == 300.0
