"""The queue reports depth, waiting time and processing time to its observer."""

from dataclasses import dataclass, field

from engine.core.model.objects import Key
from engine.runtime.reconciling.workers.queue import WorkQueue


@dataclass
class Recorder:
    depths: list[int] = field(default_factory=list)
    adds: list[Key] = field(default_factory=list)
    waits: list[tuple[Key, float]] = field(default_factory=list)
    work: list[tuple[Key, float]] = field(default_factory=list)
    retries: list[Key] = field(default_factory=list)

    def depth(self, depth: int) -> None:
        self.depths.append(depth)

    def added(self, key: Key) -> None:
        self.adds.append(key)

    def waited(self, key: Key, seconds: float) -> None:
        self.waits.append((key, seconds))

    def processed(self, key: Key, seconds: float) -> None:
        self.work.append((key, seconds))

    def retried(self, key: Key) -> None:
        self.retries.append(key)


def test_observer_sees_time_from_add_to_get_and_from_get_to_done() -> None:
    now = [100.0]
    recorder = Recorder()
    queue = WorkQueue(clock=lambda: now[0], observer=recorder)
    queue.add(Key("ns", "a"))
    queue.add(Key("ns", "a"))
    now[0] += 2.0
    queue.get(timeout=0)
    now[0] += 0.5
    assert queue.longest_running_seconds() == 0.5
    queue.done(Key("ns", "a"))

    assert recorder.adds == [Key("ns", "a")]
    assert recorder.waits == [(Key("ns", "a"), 2.0)]
    assert recorder.work == [(Key("ns", "a"), 0.5)]
    assert recorder.depths == [1, 0]


def test_observer_counts_retries() -> None:
    recorder = Recorder()
    queue = WorkQueue(clock=lambda: 0.0, observer=recorder)
    queue.add_rate_limited(Key("ns", "a"))
    queue.add_rate_limited(Key("ns", "a"))

    assert recorder.retries == [Key("ns", "a"), Key("ns", "a")]
