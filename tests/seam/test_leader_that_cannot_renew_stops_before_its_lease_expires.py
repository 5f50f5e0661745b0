"""A leader whose renewals fail stops its work before its Lease can expire, and nothing it sends
reaches the server after that: from the moment the Lease expires another replica may lead.

Time is a fake clock that moves only when the elector waits or a request takes its timeout, a
quarter second at a time; at every quarter the replica's work writes a ConfigMap while it leads.
The last renewal that succeeds is answered slowly (stored at 6 s, answered at 12 s), so the
deadline must run from when it was sent.  Then the server stops answering the replica's Lease
requests (its other writes still arrive, the worst case), either at once (each request waits its
whole timeout) or after a while of refused connections (failures that cost no time, then one
that hangs).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

from engine.runtime.serving import leader
from tests.seam._fake import FakeKube

NAMESPACE = "ns"
LEASE_DURATION, RENEW_DEADLINE, RETRY_PERIOD = 15.0, 10.0, 2.0
LAST_RENEWAL, ITS_ANSWER_TAKES = 6.0, 6.0  # after the renewals at 2 and 4
CUT_OFF_AT = 7.0
GIVE_UP_AT = 60.0  # an elector still leading by then never steps down
TICK = 0.25


class FakeTime:
    def __init__(self) -> None:
        self.now = 0.0
        self.ticked: Callable[[], None] = lambda: None
        self.waits = 0

    def clock(self) -> float:
        return self.now

    def wait(self, event: threading.Event, seconds: float) -> bool:
        self.waits += 1
        assert self.waits < 10_000, f"the elector spins at {self.now}s without letting time pass"
        end = self.now + seconds
        while self.now < end and not event.is_set():
            self.now = min(self.now + TICK, end)
            self.ticked()
        return event.is_set()

    def sleep(self, seconds: float) -> None:
        self.wait(threading.Event(), seconds)


@pytest.mark.parametrize("refused_for", [0.0, 7.0], ids=["unanswered", "refused-then-unanswered"])
def test_the_leader_stops_and_writes_nothing_before_its_lease_can_expire(refused_for: float) -> None:
    fake, time = FakeKube(), FakeTime()
    fake.waiting = time.sleep
    stored: list[tuple[float, str]] = []  # (moment, kind) of every write the server stored

    def store(verb: str, obj: dict[str, Any]) -> None:
        stored.append((time.now, obj["kind"]))
        if obj["kind"] == "Lease" and time.now == LAST_RENEWAL:
            time.sleep(ITS_ANSWER_TAKES)

    fake.before_response = store
    stepped_down: list[tuple[float, int]] = []  # (moment, writes stored by then)
    leading = threading.Event()

    def stopped() -> None:
        leading.clear()
        stepped_down.append((time.now, len(stored)))
        elector.stop(release=False)  # as the process exits

    elector = leader.LeaderElector(
        fake,  # type: ignore[arg-type]
        namespace=NAMESPACE,
        identity="a",
        lease_duration=LEASE_DURATION,
        renew_deadline=RENEW_DEADLINE,
        retry_period=RETRY_PERIOD,
        on_started_leading=leading.set,
        on_stopped_leading=stopped,
        clock=time.clock,
        wait=time.wait,
    )

    def tick() -> None:
        if time.now >= CUT_OFF_AT + refused_for:
            fake.unanswered["leases"] = None  # each request takes its timeout
        elif time.now >= CUT_OFF_AT:
            fake.unanswered["leases"] = 0.0  # refused at once
        if leading.is_set():
            work: dict[str, Any] = {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": "work", "namespace": NAMESPACE},
                "data": {"at": str(time.now)},
            }
            fake.apply(work)
        if time.now >= GIVE_UP_AT:
            elector.stop(release=False)

    time.ticked = tick
    elector.run()

    renewed = [moment for moment, kind in stored if kind == "Lease"]
    assert renewed[-1] == LAST_RENEWAL, "it led and renewed until it was cut off"
    expires = renewed[-1] + LEASE_DURATION
    assert stepped_down and stepped_down[0][0] < expires, (stepped_down, expires)
    assert stored[stepped_down[0][1] :] == [], "nothing is written after the step-down"
    worked = [moment for moment, kind in stored if kind == "ConfigMap"]
    assert max(worked) > CUT_OFF_AT, "it worked on while cut off"
