"""The engine reads one clock, the one it is given: a kind's period is waited out in its queue on
that clock's seconds, and the conditions it writes carry that clock's time of day.  Moved by hand,
it moves both; no real time passes."""

from __future__ import annotations

from pathlib import Path

from engine.core.decisions import conditions
from engine.core.model.objects import Key
from tests.seam._fake import FakeKube
from tests.seam._harness import SPEC_VALUE_IN_CONFIG_MAP_A, WIDGET, HandClock, engine_for, parent, worker_of

W = Key("ns", "w")


def test_a_period_is_waited_out_and_conditions_are_stamped_on_the_given_clock(tmp_path: Path) -> None:
    fake = FakeKube()
    parent(fake, value="v")
    clock = HandClock()
    with engine_for(fake, tmp_path, SPEC_VALUE_IN_CONFIG_MAP_A, "reconcileEvery: 60s\n", clock=clock) as c:
        worker = worker_of(c)
        while (key := worker.queue.get(timeout=0)) is not None:  # the listing's own wake
            worker.queue.done(key)

        worker.process(W)
        stamped = {cond["lastTransitionTime"] for cond in fake.objects[WIDGET]["status"]["conditions"]}
        assert stamped == {conditions.timestamp(clock.wall())}
        assert worker.queue.get(timeout=0) is None  # its next turn is within the period

        clock.seconds += 60
        assert worker.queue.get(timeout=0) == W
