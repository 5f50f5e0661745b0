"""Leader election against a real API server: one leader of two, hand-over by expiry and by release.

Timings are short so the tests are quick, and chosen so that a lease duration
is clearly longer than a retry period: a release must hand over in far less
time than expiry does, or these tests cannot tell the two apart.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from engine.runtime.cluster.kube import Kube
from engine.runtime.serving import leader
from tests._deadlines import eventually

LEASE = "stencil-leader"
LEASE_DURATION = 3
RETRY = 0.25
# The slowest a candidate can notice a change: one jittered retry period.
POLL = RETRY * (1 + leader.JITTER_FACTOR)
# The observation window in which the leadership of two candidates must not move.
STEADY_WINDOW = 2 * LEASE_DURATION


@dataclass
class Candidate:
    """An elector and what its callbacks saw, in order."""

    elector: leader.LeaderElector
    events: list[str] = field(default_factory=list)
    holder_when_stopped: list[str] = field(default_factory=list)


@pytest.fixture
def candidates(kube: Kube, namespace: str) -> Iterator[Any]:
    made: list[Candidate] = []

    def make(identity: str, lease_duration: float = LEASE_DURATION, renew_deadline: float = 2) -> Candidate:
        candidate: Candidate

        def started() -> None:
            candidate.events.append("started")

        def stopped() -> None:
            candidate.events.append("stopped")
            candidate.holder_when_stopped.append(holder(kube, namespace))

        candidate = Candidate(
            leader.LeaderElector(
                kube,
                namespace=namespace,
                name=LEASE,
                identity=identity,
                lease_duration=lease_duration,
                renew_deadline=renew_deadline,
                retry_period=RETRY,
                on_started_leading=started,
                on_stopped_leading=stopped,
            )
        )
        made.append(candidate)
        return candidate

    yield make
    for candidate in made:
        candidate.elector.stop(release=True, timeout=10)


def lease(kube: Kube, namespace: str) -> dict[str, Any]:
    found: dict[str, Any] = kube.request(
        "GET", f"/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases/{LEASE}"
    )
    return found


def holder(kube: Kube, namespace: str) -> str:
    return str(lease(kube, namespace)["spec"].get("holderIdentity") or "")


def seen_by(candidate: Candidate) -> tuple[leader.LeaseRecord | None, float]:
    """The Lease as ``candidate`` last saw it change, and when, on its monotonic clock (0.0: never
    read).  The elector has no public view of either; these are its private fields."""
    return candidate.elector._observed, candidate.elector._observed_at


def test_exactly_one_of_two_candidates_leads(candidates: Any, kube: Kube, namespace: str) -> None:
    a, b = candidates("a"), candidates("b")
    a.elector.start()
    b.elector.start()

    first = eventually(lambda: next((c for c in (a, b) if c.elector.is_leader), None), what="a leader")
    samples = []
    deadline = time.monotonic() + STEADY_WINDOW  # the observation window, from the first leader on
    while time.monotonic() < deadline:
        samples.append((a.elector.is_leader, b.elector.is_leader, holder(kube, namespace)))
        time.sleep(RETRY / 2)  # sampling the observation window

    assert {s[:2] for s in samples} == {(first is a, first is b)}
    assert {s[2] for s in samples} == {first.elector.identity}
    assert first.events == ["started"]
    other = b if first is a else a
    assert other.events == []


def test_standby_takes_over_after_lease_duration_when_leader_dies(
    candidates: Any, kube: Kube, namespace: str
) -> None:
    a = candidates("a")
    a.elector.start()
    eventually(lambda: a.elector.is_leader, what="a leading")
    b = candidates("b")
    b.elector.start()
    # b has read a's Lease, and seen a renewal of it more than the lower bound's slack below
    # (RETRY + POLL) later: a b that timed the expiry from its first read instead of from the
    # last change it saw would take over too early to pass.
    first_read = eventually(lambda: seen_by(b)[1], interval=0.05, what="b to read the Lease")
    eventually(lambda: seen_by(b)[1] - first_read > RETRY + POLL, interval=0.05, what="b to see a renew")
    before = lease(kube, namespace)["spec"]

    a.elector.stop(release=False)  # a crash: nobody releases the lease
    stopped_at = time.monotonic()
    eventually(lambda: b.elector.is_leader, interval=0.05, what="b leading")
    took = time.monotonic() - stopped_at

    # b waits out a full duration from the last change it saw: a's last renewal,
    # which was at most one retry period before a stopped.
    assert LEASE_DURATION - RETRY - POLL <= took <= LEASE_DURATION + 2 * POLL + 1
    after = lease(kube, namespace)["spec"]
    assert after["holderIdentity"] == "b"
    assert after["leaseTransitions"] == before["leaseTransitions"] + 1
    assert after["acquireTime"] != before["acquireTime"]


def test_released_lease_is_taken_over_at_once(candidates: Any, kube: Kube, namespace: str) -> None:
    a = candidates("a", lease_duration=20, renew_deadline=10)
    a.elector.start()
    eventually(lambda: a.elector.is_leader, what="a leading")
    b = candidates("b", lease_duration=20, renew_deadline=10)
    b.elector.start()
    # b stands by: it has read the Lease and found a holding it.
    eventually(lambda: (seen_by(b)[0] or leader.LeaseRecord()).holder == "a", what="b to stand by")

    a.elector.stop(release=True)
    stopped_at = time.monotonic()
    eventually(lambda: b.elector.is_leader, interval=0.05, what="b leading")
    took = time.monotonic() - stopped_at

    assert took <= POLL + 1  # far below the 20 s lease duration
    # a stopped its work while it still held the lease, and released it only after.
    assert a.events == ["started", "stopped"]
    assert a.holder_when_stopped == ["a"]


def test_leader_steps_down_when_another_holds_the_lease(candidates: Any, kube: Kube, namespace: str) -> None:
    a = candidates("a")
    a.elector.start()
    eventually(lambda: a.elector.is_leader, what="a leading")

    taken = lease(kube, namespace)
    taken["spec"]["holderIdentity"] = "intruder"
    taken["spec"]["leaseDurationSeconds"] = 3600
    kube.request("PUT", f"/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases/{LEASE}", taken)

    eventually(lambda: not a.elector.is_leader, interval=0.05, what="a stepping down")
    assert a.events == ["started", "stopped"]
    assert holder(kube, namespace) == "intruder"


def test_elector_stops_from_another_thread_while_waiting(candidates: Any, kube: Kube, namespace: str) -> None:
    a = candidates("a")
    a.elector.start()
    eventually(lambda: a.elector.is_leader, what="a leading")
    b = candidates("b")
    thread = b.elector.start()

    stopper = threading.Thread(target=b.elector.stop)
    stopper.start()
    stopper.join(5)

    assert not thread.is_alive()
    assert b.events == []
    assert holder(kube, namespace) == "a"


def test_leader_renews_the_lease_without_starting_a_new_term(
    candidates: Any, kube: Kube, namespace: str
) -> None:
    a = candidates("a")
    a.elector.start()
    eventually(lambda: a.elector.is_leader, what="a leading")
    first = lease(kube, namespace)["spec"]

    def renewed() -> dict[str, Any] | None:
        spec = lease(kube, namespace)["spec"]
        return spec if spec["renewTime"] > first["renewTime"] else None

    later = eventually(renewed, interval=0.05, what="a renewal")

    assert (later["acquireTime"], later["leaseTransitions"]) == (
        first["acquireTime"],
        first["leaseTransitions"],
    )
    assert a.events == ["started"]
