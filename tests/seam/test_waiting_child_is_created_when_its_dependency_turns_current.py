"""A child that waits for another template (``after:``) is created by the reconcile that the
dependency's own status event queues, once that dependency is Current; until then the parent
says what it waits for.  No timer is involved: the event alone wakes the parent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.core.model.objects import Key
from engine.runtime.reconciling.reconcile import controller, reporting
from tests._deadlines import eventually
from tests.seam._fake import FakeKube
from tests.seam._harness import (
    CONFIG_KEY,
    GADGET_KEY,
    WIDGET,
    conditions,
    gadget_then_config,
    parent,
    worker_of,
)


def gadget_reports(fake: FakeKube, ready: str) -> None:
    """The Gadget's own controller writes its Ready condition."""
    gadget = fake.objects[GADGET_KEY]
    condition = {"type": "Ready", "status": ready, "reason": "Warming" if ready != "True" else "Up"}
    fake.add({**gadget, "status": {"conditions": [condition]}})


def gadget_status_cached(kind_controller: controller.KindController, fake: FakeKube) -> None:
    """Wait until the Gadget's status event has reached the cache, replacing the create's answer.

    The answer to the create (no status yet) is cached at once, and a Gadget without
    status conditions is Current by kstatus's rules: a reconcile that ran before the
    event would rightly create the waiting child."""

    def cached() -> bool:
        parent_uid = fake.objects[WIDGET]["metadata"]["uid"]
        gadget = fake.objects[GADGET_KEY]
        return any(
            held["metadata"]["resourceVersion"] == gadget["metadata"]["resourceVersion"]
            for held in kind_controller.host.children.of(parent_uid)
            if held["kind"] == "Gadget"
        )

    eventually(cached, interval=0.01, what="the Gadget's status event in the cache")


def work_the_queue(kind_controller: controller.KindController) -> list[Key]:
    """Reconcile until the queue stays empty, including the look again at progress that waited."""
    processed, worker = [], worker_of(kind_controller)
    while (key := worker.queue.get(timeout=reporting.PROGRESS_INTERVAL + 0.5)) is not None:
        worker.process(key)
        processed.append(key)
    return processed


def test_the_waiting_child_is_created_by_the_dependencys_status_event(tmp_path: Path) -> None:
    fake = FakeKube()
    parent(fake)
    with gadget_then_config(fake, tmp_path) as kind_controller:

        def gadget_starts_not_ready(verb: str, written: dict[str, Any]) -> None:
            if verb == "APPLY" and written["kind"] == "Gadget":
                fake.before_response = None
                gadget_reports(fake, "False")

        fake.before_response = gadget_starts_not_ready
        kind_controller.reconcile(Key("ns", "w"))
        gadget_status_cached(kind_controller, fake)
        work_the_queue(kind_controller)

        assert GADGET_KEY in fake.objects
        assert CONFIG_KEY not in fake.objects
        ready = conditions(fake)["Ready"]
        assert (ready["status"], ready["reason"]) == ("False", "WaitingForDependencies")
        assert ready["message"].startswith("config waits for gadget (InProgress: ")

        gadget_reports(fake, "True")
        worker = worker_of(kind_controller)
        assert worker.queue.get(timeout=5) == Key("ns", "w")  # the Gadget's event, routed to its parent
        worker.process(Key("ns", "w"))

        assert CONFIG_KEY in fake.objects
        assert conditions(fake)["ChildrenApplied"]["reason"] == "Applied"
