"""A status change that only reports progress waits up to ``PROGRESS_INTERVAL`` and is merged with
the next; a first status and a new verdict (``Ready``'s status or reason) are written at once.

A Deployment reports several steps on its way to Available; writing each to the
parent costs the API server a write per step and per parent.
"""

from __future__ import annotations

from pathlib import Path

from engine.core.model.objects import Key
from engine.runtime.reconciling.reconcile import controller, reporting
from tests._deadlines import eventually
from tests.seam._fake import FakeKube
from tests.seam._harness import GADGET, GADGET_KEY, WIDGET, HandClock, conditions, engine_for, parent


def status_writes(fake: FakeKube) -> int:
    return sum(verb == "STATUS" for verb, _ in fake.calls)


def gadget_reports(
    fake: FakeKube, kind_controller: controller.KindController, ready: str, reason: str
) -> None:
    """The Gadget's own controller writes its Ready condition; wait until the cache has it."""
    gadget = fake.objects[GADGET_KEY]
    written = fake.add(
        {**gadget, "status": {"conditions": [{"type": "Ready", "status": ready, "reason": reason}]}}
    )
    widget_uid = fake.objects[WIDGET]["metadata"]["uid"]

    def cached() -> bool:
        version = written["metadata"]["resourceVersion"]
        held = kind_controller.host.children.of(widget_uid)
        return any(c["metadata"]["resourceVersion"] == version for c in held if c["kind"] == "Gadget")

    eventually(cached, interval=0.01, what="the Gadget's status in the cache")


def test_progress_waits_and_a_new_verdict_does_not(tmp_path: Path) -> None:
    fake = FakeKube()
    parent(fake)
    with engine_for(fake, tmp_path, GADGET) as kind_controller:
        kind_controller.reconcile(Key("ns", "w"))  # creates the Gadget, writes the first status at once
        gadget_reports(fake, kind_controller, "False", "Starting")
        kind_controller.reconcile(Key("ns", "w"))  # Ready turns False: a new verdict, written at once
        assert status_writes(fake) == 2
        first = conditions(fake)["ChildrenReady"]["message"]
        assert "Starting" in first

        gadget_reports(fake, kind_controller, "False", "Warming")
        result = kind_controller.reconcile(Key("ns", "w"))
        # Still not Ready for the same reason: only progress, so not written yet.
        assert status_writes(fake) == 2
        assert result.requeue_after is not None
        assert 0 < result.requeue_after <= reporting.PROGRESS_INTERVAL
        assert conditions(fake)["ChildrenReady"]["message"] == first

        gadget_reports(fake, kind_controller, "True", "Up")
        kind_controller.reconcile(Key("ns", "w"))  # a new verdict: Ready, written without waiting
        assert status_writes(fake) == 3
        assert conditions(fake)["Ready"]["status"] == "True"


def test_the_waiting_progress_is_written_once_the_interval_has_passed(tmp_path: Path) -> None:
    fake = FakeKube()
    parent(fake)
    clock = HandClock()
    with engine_for(fake, tmp_path, GADGET, clock=clock) as kind_controller:
        kind_controller.reconcile(Key("ns", "w"))
        gadget_reports(fake, kind_controller, "False", "Starting")
        kind_controller.reconcile(Key("ns", "w"))
        gadget_reports(fake, kind_controller, "False", "Warming")
        result = kind_controller.reconcile(Key("ns", "w"))
        assert result.requeue_after is not None
        clock.seconds += result.requeue_after
        kind_controller.reconcile(Key("ns", "w"))
        assert status_writes(fake) == 3
        assert "Warming" in conditions(fake)["ChildrenReady"]["message"]
