"""Keys are handed out by namespace in turns: a tenant with 300 parents waiting delays another
tenant's parent by one turn, in each namespace first come first served.  A key whose work
overran its budget is held: adding it again waits out a backoff that doubles with each overrun,
even when it was added while it ran, until ``forget``."""

from __future__ import annotations

from engine.runtime.reconciling.queue import WorkQueue


def drain(queue: WorkQueue) -> list[str]:
    taken = []
    while (key := queue.get(timeout=0)) is not None:
        taken.append(key)
        queue.done(key)
    return taken


def test_another_namespaces_key_waits_one_turn_behind_a_flood() -> None:
    queue = WorkQueue(clock=lambda: 0.0)
    for i in range(300):
        queue.add(f"tenant-a/slow-{i}")
    queue.add("tenant-b/fair")

    taken = drain(queue)

    assert taken.index("tenant-b/fair") == 1
    assert [k for k in taken if k.startswith("tenant-a/")] == [f"tenant-a/slow-{i}" for i in range(300)]


def test_namespaces_take_turns_in_the_order_they_came() -> None:
    queue = WorkQueue(clock=lambda: 0.0)
    for key in ("a/1", "a/2", "a/3", "b/1", "c/1", "c/2", "/cluster"):
        queue.add(key)

    assert drain(queue) == ["a/1", "b/1", "c/1", "/cluster", "a/2", "c/2", "a/3"]
    assert len(queue) == 0


def test_an_overrun_key_added_again_waits_out_its_doubling_hold() -> None:
    now = [0.0]
    queue = WorkQueue(overrun_delay=1.0, max_delay=3.0, clock=lambda: now[0])
    waits = []
    for _ in range(4):
        queue.add("ns/slow")
        assert queue.get(timeout=0) == "ns/slow"
        queue.hold("ns/slow")
        queue.done("ns/slow")
        held_at = now[0]
        queue.add("ns/slow")  # an event for the parent
        while queue.get(timeout=0) is None:
            now[0] += 0.25
        waits.append(now[0] - held_at)
        queue.done("ns/slow")

    assert waits == [1.0, 2.0, 3.0, 3.0]
    queue.add("ns/other")
    assert queue.get(timeout=0) == "ns/other", "a hold is the key's own"


def test_a_key_added_while_it_ran_over_its_budget_waits_too() -> None:
    now = [0.0]
    queue = WorkQueue(overrun_delay=2.0, clock=lambda: now[0])
    queue.add("ns/slow")
    assert queue.get(timeout=0) == "ns/slow"
    queue.add("ns/slow")  # a change while it renders
    queue.hold("ns/slow")
    queue.done("ns/slow")

    assert queue.get(timeout=0) is None
    now[0] = 2.0
    assert queue.get(timeout=0) == "ns/slow"


def test_forget_lifts_the_hold() -> None:
    queue = WorkQueue(overrun_delay=60.0, clock=lambda: 0.0)
    queue.hold("ns/slow")
    queue.forget("ns/slow")
    queue.add("ns/slow")

    assert queue.get(timeout=0) == "ns/slow"
