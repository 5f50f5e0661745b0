"""Keys are handed out by namespace in turns: a tenant with 300 parents waiting delays another
tenant's parent by one turn, in each namespace first come first served.  A key whose work
overran its budget is held: adding it again waits out a backoff that doubles with each overrun,
even when it was added while it ran, until ``forget``."""

from __future__ import annotations

from engine.core.model.objects import Key
from engine.runtime.reconciling.workers.queue import WorkQueue


def drain(queue: WorkQueue) -> list[Key]:
    taken = []
    while (key := queue.get(timeout=0)) is not None:
        taken.append(key)
        queue.done(key)
    return taken


def test_another_namespaces_key_waits_one_turn_behind_a_flood() -> None:
    queue = WorkQueue(clock=lambda: 0.0)
    for i in range(300):
        queue.add(Key("tenant-a", f"slow-{i}"))
    queue.add(Key("tenant-b", "fair"))

    taken = drain(queue)

    assert taken.index(Key("tenant-b", "fair")) == 1
    assert [k for k in taken if k.namespace == "tenant-a"] == [
        Key("tenant-a", f"slow-{i}") for i in range(300)
    ]


def test_namespaces_take_turns_in_the_order_they_came() -> None:
    queue = WorkQueue(clock=lambda: 0.0)
    for key in (
        Key("a", "1"),
        Key("a", "2"),
        Key("a", "3"),
        Key("b", "1"),
        Key("c", "1"),
        Key("c", "2"),
        Key("", "cluster"),
    ):
        queue.add(key)

    assert drain(queue) == [
        Key("a", "1"),
        Key("b", "1"),
        Key("c", "1"),
        Key("", "cluster"),
        Key("a", "2"),
        Key("c", "2"),
        Key("a", "3"),
    ]
    assert len(queue) == 0


def test_an_overrun_key_added_again_waits_out_its_doubling_hold() -> None:
    now = [0.0]
    queue = WorkQueue(overrun_delay=1.0, max_delay=3.0, clock=lambda: now[0])
    waits = []
    for _ in range(4):
        queue.add(Key("ns", "slow"))
        assert queue.get(timeout=0) == Key("ns", "slow")
        queue.hold(Key("ns", "slow"))
        queue.done(Key("ns", "slow"))
        held_at = now[0]
        queue.add(Key("ns", "slow"))  # an event for the parent
        while queue.get(timeout=0) is None:
            now[0] += 0.25
        waits.append(now[0] - held_at)
        queue.done(Key("ns", "slow"))

    assert waits == [1.0, 2.0, 3.0, 3.0]
    queue.add(Key("ns", "other"))
    assert queue.get(timeout=0) == Key("ns", "other"), "a hold is the key's own"


def test_a_key_added_while_it_ran_over_its_budget_waits_too() -> None:
    now = [0.0]
    queue = WorkQueue(overrun_delay=2.0, clock=lambda: now[0])
    queue.add(Key("ns", "slow"))
    assert queue.get(timeout=0) == Key("ns", "slow")
    queue.add(Key("ns", "slow"))  # a change while it renders
    queue.hold(Key("ns", "slow"))
    queue.done(Key("ns", "slow"))

    assert queue.get(timeout=0) is None
    now[0] = 2.0
    assert queue.get(timeout=0) == Key("ns", "slow")


def test_forget_lifts_the_hold() -> None:
    queue = WorkQueue(overrun_delay=60.0, clock=lambda: 0.0)
    queue.hold(Key("ns", "slow"))
    queue.forget(Key("ns", "slow"))
    queue.add(Key("ns", "slow"))

    assert queue.get(timeout=0) == Key("ns", "slow")
