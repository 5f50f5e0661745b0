"""Under load a parent's first "not Ready yet" waits while other parents wait for a worker, so work
that changes the cluster goes first; a parent that becomes Ready meanwhile gets one status write, not
two.  With nothing else waiting, the first status is written at once."""

from __future__ import annotations

from pathlib import Path

from engine.core.model.objects import Key
from engine.runtime.reconciling.reconcile import controller, reporting
from tests._deadlines import eventually
from tests.seam._fake import FakeKube
from tests.seam._harness import NAMESPACE, WIDGET, conditions, engine_for, parent, worker_of
from tests.seam.test_status_progress_is_merged_but_a_new_verdict_is_written_at_once import (
    GADGET,
    GADGET_KEY,
    status_writes,
)

# The Widget is Ready once its Gadget says it is up.
RULES = """\
status:
  conditions:
    - type: Up
      status: "children.children.status.up == 'yes'"
"""


def gadget_comes_up(fake: FakeKube, kind_controller: controller.KindController) -> None:
    written = fake.add({**fake.objects[GADGET_KEY], "status": {"up": "yes"}})
    widget_uid = fake.objects[WIDGET]["metadata"]["uid"]

    def cached() -> bool:
        held = kind_controller.host.children.of(widget_uid)
        return any(c["metadata"]["resourceVersion"] == written["metadata"]["resourceVersion"] for c in held)

    eventually(cached, interval=0.01, what="the Gadget's status in the cache")


def drain(kind_controller: controller.KindController) -> None:
    """Take every key the informer queued, as idle workers would."""
    while (key := worker_of(kind_controller).queue.get(timeout=0)) is not None:
        worker_of(kind_controller).queue.done(key)


def test_the_first_report_waits_behind_other_parents_and_ready_is_written_once(tmp_path: Path) -> None:
    fake = FakeKube()
    parent(fake)
    with engine_for(fake, tmp_path, GADGET, RULES) as kind_controller:
        drain(kind_controller)
        worker_of(kind_controller).queue.add(Key(NAMESPACE, "another"))  # another parent waits for a worker

        result = kind_controller.reconcile(Key(NAMESPACE, "w"))

        assert [verb for verb, _ in fake.calls if verb in ("APPLY", "STATUS")] == ["APPLY"]
        assert result.when_idle and result.requeue_after == reporting.REPORT_WAIT

        gadget_comes_up(fake, kind_controller)
        kind_controller.reconcile(Key(NAMESPACE, "w"))  # Ready is news: written whatever waits

        assert status_writes(fake) == 1
        assert conditions(fake)["Ready"]["status"] == "True"


def test_with_nothing_else_waiting_the_first_status_is_written_at_once(tmp_path: Path) -> None:
    fake = FakeKube()
    parent(fake)
    with engine_for(fake, tmp_path, GADGET, RULES) as kind_controller:
        drain(kind_controller)

        result = kind_controller.reconcile(Key(NAMESPACE, "w"))

        assert status_writes(fake) == 1
        assert conditions(fake)["Ready"]["status"] == "False"
        assert not result.when_idle
